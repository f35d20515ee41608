package dev.safetensors.signing.internal;

import dev.safetensors.signing.Manifest;
import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The statement inside the spec's vectors, read without their signatures (whose keys are not published). */
class StatementCodecTest {
    private static byte[] payload(String vector) throws IOException {
        try (InputStream in = StatementCodecTest.class.getResourceAsStream("/oms-spec/" + vector)) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return Base64.getDecoder().decode(json.split("\"payload\": \"")[1].split("\"")[0]);
        }
    }

    @Test
    void theKeyVectorsStatementIsAFilesManifestWhoseSubjectMatches() throws Exception {
        Manifest manifest = StatementCodec.read(payload("valid/key.bundle.json"));
        assertEquals(Serialization.Method.FILES, manifest.serialization().method());
        assertEquals(2, manifest.resources().size());
        assertEquals("92745110b1ab4368471cbe31664e10174e954b113a3df333db860317b2c6dec4", manifest.subjectDigest());
    }

    @Test
    void aWrongPredicateTypeIsRefused() throws Exception {
        SigningException e = assertThrows(SigningException.class,
                () -> StatementCodec.read(payload("invalid-payload/wrong-predicate.bundle.json")));
        assertEquals(Reason.INVALID_STATEMENT, e.reason());
    }

    @Test
    void whatWeWriteReadsBackEqual() throws Exception {
        Manifest manifest = new Manifest("m", Serialization.shards(8).withIgnorePaths(java.util.List.of("x")),
                java.util.List.of(new dev.safetensors.signing.Resource("f:0:8", "sha256", "00ff")));
        assertEquals(manifest, StatementCodec.read(StatementCodec.write(manifest)));
    }
}
