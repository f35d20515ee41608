package dev.safetensors.signing;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * What we write against the OMS v1.0 schemas (src/test/resources/oms-spec/schemas): the bundle, and the statement
 * inside its envelope, which the bundle schema cannot see through Base64. The spec's own valid and invalid vectors
 * check that the schemas are wired as the spec means them.
 */
class BundleSchemaTest {
    private static Schema bundle;
    private static Schema statement;

    @TempDir
    Path dir;

    @BeforeAll
    static void load() throws Exception {
        Map<String, String> schemas = new HashMap<>();
        for (String name : List.of("bundle", "envelope", "statement", "predicate")) {
            schemas.put("https://model_signing/" + name + "/v1.0/schema",
                    TestSupport.resource("oms-spec/schemas/" + name + ".schema.json"));
        }
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                builder -> builder.schemas(schemas));
        bundle = registry.getSchema(SchemaLocation.of("https://model_signing/bundle/v1.0/schema"));
        statement = registry.getSchema(SchemaLocation.of("https://model_signing/statement/v1.0/schema"));
    }

    private static String payload(String bundleJson) {
        String base64 = bundleJson.replaceAll("(?s).*\"payload\"\\s*:\\s*\"([^\"]+)\".*", "$1");
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    @Test
    void theSchemasAcceptTheSpecsValidVectorsAndRefuseItsInvalidOnes() throws Exception {
        for (String valid : List.of("key", "certificate", "sigstore")) {
            String json = TestSupport.resource("oms-spec/valid/" + valid + ".bundle.json");
            assertEquals(List.of(), bundle.validate(json, InputFormat.JSON), valid);
            assertEquals(List.of(), statement.validate(payload(json), InputFormat.JSON), valid);
        }
        for (String invalid : List.of("missing-envelope", "missing-tlog-entries", "missing-verification-material")) {
            String json = TestSupport.resource("oms-spec/invalid/" + invalid + ".bundle.json");
            assertNotEquals(List.of(), bundle.validate(json, InputFormat.JSON), invalid);
        }
        String wrong = TestSupport.resource("oms-spec/invalid-payload/wrong-predicate.bundle.json");
        assertNotEquals(List.of(), statement.validate(payload(wrong), InputFormat.JSON));
    }

    @Test
    void keyAndCertificateBundlesWeWriteValidate() throws Exception {
        Path model = TestSupport.model(dir);
        ModelSignature key = ModelSigner.withKey(TestSupport.ecKeys("secp256r1"))
                .sign(ModelFiles.of(model), Serialization.shards(1024));
        ModelSignature certificate = ModelSigner.withCertificateChain(
                        SigningKeys.readPrivateKey(TestSupport.resource("pki/signer-key.pem")),
                        SigningKeys.readCertificates(TestSupport.resource("pki/signer.pem")
                                + TestSupport.resource("pki/int-ca.pem")))
                .sign(ModelFiles.of(model), Serialization.files());
        for (ModelSignature signature : List.of(key, certificate)) {
            String json = new String(signature.bundle(), StandardCharsets.UTF_8);
            List<Error> bundleErrors = bundle.validate(json, InputFormat.JSON);
            assertEquals(List.of(), bundleErrors, json);
            assertEquals(List.of(), statement.validate(payload(json), InputFormat.JSON), payload(json));
        }
    }
}
