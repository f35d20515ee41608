package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.SigningException.Reason;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The bundle reader is strict about what verification depends on, lenient where the spec says to be. */
class BundleParsingTest {
    @TempDir
    Path dir;

    private KeyPair keys;
    private String json;

    @BeforeEach
    void sign() throws Exception {
        keys = TestSupport.ecKeys("secp256r1");
        json = new String(ModelSigner.withKey(keys).sign(ModelFiles.of(TestSupport.model(dir)),
                Serialization.files()).bundle(), StandardCharsets.UTF_8);
    }

    private Reason refusal(byte[] bundle) throws Exception {
        SigningException e = assertThrows(SigningException.class,
                () -> ModelVerifier.withPublicKey(keys.getPublic()).verifySignature(bundle));
        assertEquals(e.reason().code(), ErrorCode.of(e));
        return e.reason();
    }

    private Reason refusal(String bundle) throws Exception {
        return refusal(bundle.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void malformedJsonIsAnInvalidBundle() throws Exception {
        assertEquals(Reason.INVALID_BUNDLE, refusal(json + " {}"));
        assertEquals(Reason.INVALID_BUNDLE, refusal(json.replace("{\"mediaType\"",
                "{\"mediaType\":\"x\",\"mediaType\"")));
        assertEquals(Reason.INVALID_BUNDLE, refusal("[".repeat(100) + "]".repeat(100)));
        byte[] latin1 = json.replace("\"tlogEntries\":[]", "\"tlogEntries\":[],\"x\":\"\u00e9\"")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(Reason.INVALID_BUNDLE, refusal(latin1));
        assertEquals(Reason.INVALID_BUNDLE, refusal(""));
        assertEquals(Reason.INVALID_BUNDLE, refusal(json.substring(0, json.length() / 2)));
    }

    @Test
    void theMediaTypeAndPayloadTypeAreChecked() throws Exception {
        assertEquals(Reason.INVALID_BUNDLE, refusal(json.replace("bundle.v0.3+json", "bundle.v9+json")));
        assertEquals(Reason.INVALID_BUNDLE, refusal(json.replace("application/vnd.in-toto+json",
                "application/json")));
    }

    @Test
    void aBundleAboveTheBoundIsRefusedBeforeParsing() throws Exception {
        assertEquals(Reason.BUNDLE_TOO_LARGE, refusal(new byte[ModelVerifier.MAX_BUNDLE_BYTES + 1]));
    }

    @Test
    void anEnvelopeWithoutSignaturesIsInvalid() throws Exception {
        assertEquals(Reason.INVALID_BUNDLE, refusal(json.replaceAll("\"signatures\":\\[.*?\\]", "\"signatures\":[]")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ",\"keyid\":\"\"", ",\"keyid\":null", ",\"keyid\":\"anything\""})
    void anyKeyIdIsAccepted(String keyid) throws Exception {
        String withKeyId = json.replaceAll("(\"sig\":\"[^\"]+\")", "$1" + keyid);
        ModelVerifier.withPublicKey(keys.getPublic()).verifySignature(withKeyId.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void unknownFieldsAreIgnored() throws Exception {
        String extended = json.replace("\"tlogEntries\":[]", "\"tlogEntries\":[],\"timestampVerificationData\":{}");
        ModelVerifier.withPublicKey(keys.getPublic()).verifySignature(extended.getBytes(StandardCharsets.UTF_8));
    }
}
