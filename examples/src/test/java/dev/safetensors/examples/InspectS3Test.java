package dev.safetensors.examples;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InspectS3} against s3proxy, a real S3 API server (the test JVM's shared {@link LoopbackS3}, in which this
 * class writes keys of its own); it checks the AWS signatures of the keys handed to the example. The runs with the
 * right keys share one child JVM with {@link SliceFromS3Test}'s ({@link S3ExampleRuns}); the one with a wrong secret
 * has a JVM of its own, as a user types it.
 */
class InspectS3Test {
    /** The runs with the right keys, in the order of their batch. */
    private static final List<String> URIS = List.of("s3://models/sample.safetensors",
            "s3://models/large-header.safetensors", "s3://models/absent.safetensors");

    private static String endpoint;
    private static long largeHeaderFileSize;

    /**
     * Writes this class's objects to the shared server, before {@link S3ExampleRuns} runs the examples.
     *
     * @param s3 the shared server
     * @throws IOException if the sample cannot be read
     */
    static void putObjects(LoopbackS3 s3) throws IOException {
        s3.put("models", "sample.safetensors", Files.readAllBytes(Path.of("data", "sample.safetensors")));
        // 3,000 tensors: a header of about 200 KB, past the 128 KiB prefix, so the header costs a second GET
        SafetensorsWriter large = SafetensorsWriter.create();
        for (int i = 0; i < 3000; i++) {
            large.tensor("model.layers." + i + ".mlp.down_proj.weight", DType.BF16, new long[] {2, 2}, new byte[8]);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        largeHeaderFileSize = large.writeTo(bytes);
        s3.put("models", "large-header.safetensors", bytes.toByteArray());
    }

    /**
     * @param endpoint the shared server's
     * @return this class's runs with the right keys
     */
    static List<ExampleProcess.Invocation> invocations(String endpoint) {
        return URIS.stream().map(uri -> new ExampleProcess.Invocation(InspectS3.class, uri, endpoint)).toList();
    }

    @BeforeAll
    static void start() throws Exception {
        endpoint = S3ExampleRuns.run();
    }

    private static ExampleProcess.Result inspect(String uri) {
        return S3ExampleRuns.result(new ExampleProcess.Invocation(InspectS3.class, uri, endpoint));
    }

    @Test
    void aHeaderThatFitsThePrefixCostsOneGet() {
        ExampleProcess.Result r = inspect("s3://models/sample.safetensors");
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith("s3://models/sample.safetensors: 4 tensors, header 368 bytes"), r.stdout());
        assertTrue(r.stdout().contains("layer0.attn.weight") && r.stdout().contains("metadata format = pt"),
                r.stdout());
        assertTrue(r.stdout().contains("cost: 1 request, 482 bytes"), "the whole 482-byte object in one GET: "
                + r.stdout());
    }

    @Test
    void aLargerHeaderCostsExactlyOneMoreGet() {
        ExampleProcess.Result r = inspect("s3://models/large-header.safetensors");
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("3000 tensors"), r.stdout());
        long headerEnd = largeHeaderFileSize - 3000 * 8;
        assertTrue(r.stdout().contains("cost: 2 requests, " + headerEnd + " bytes"),
                "the prefix, then exactly the rest of the header: " + r.stdout());
    }

    @Test
    void aMissingObjectIsNamedInTheError() {
        ExampleProcess.Result r = inspect("s3://models/absent.safetensors");
        assertEquals(1, r.exitCode(), r.stdout());
        assertTrue(r.stderr().contains("SourceNotFoundException: s3://models/absent.safetensors"),
                r.stderr());
    }

    @Test
    void wrongKeysAreRefusedByTheServer() throws Exception {
        ExampleProcess.Result r = ExampleProcess.run(InspectS3.class, Map.of("AWS_ACCESS_KEY_ID", LoopbackS3.ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY", "not-the-secret", "AWS_REGION", "us-east-1"),
                "s3://models/sample.safetensors", endpoint);
        assertEquals(1, r.exitCode(), r.stdout());
        assertTrue(r.stderr().contains("AccessDeniedException") || r.stderr().contains("403"), r.stderr());
        assertTrue(!r.stderr().contains("not-the-secret"), "the secret never reaches a message: " + r.stderr());
    }
}
