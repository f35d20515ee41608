package dev.safetensors.cli;

import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over s3proxy (the module's shared {@link LoopbackS3}, in a bucket of this class's own, {@value #BUCKET}): a
 * location that names no object but is a prefix holding files, written without its {@code /}, is {@code NOT_FOUND}
 * with "did you mean ...?" at the cost of one listing request, counted; a one-level listing says how many
 * sub-prefixes it did not enter.
 */
class PrefixHintS3Test {
    private static final Map<String, String> ENV = InProcess.S3_ENV;
    private static final String BUCKET = "hints";

    @TempDir
    static Path bucket;
    private static String endpoint;

    @BeforeAll
    static void start() throws Exception {
        Fixtures.twoShards(bucket.resolve("ckpt"));
        Fixtures.write(bucket, "top.safetensors", Fixtures.small().build());
        Fixtures.write(bucket, "other/x.safetensors", Fixtures.small().build());
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.putFiles(BUCKET, bucket);
        endpoint = s3.endpoint().toString();
    }

    private static Cli.Run validate(int exit, String... more) {
        String[] args = new String[4 + more.length];
        args[0] = "validate";
        args[1] = "--s3-endpoint";
        args[2] = endpoint;
        args[3] = "--s3-path-style";
        System.arraycopy(more, 0, args, 4, more.length);
        return InProcess.run(ENV, args).exits(exit);
    }

    @Test
    void aPrefixWrittenWithoutItsSlashIsNotFoundWithAHintCountedAsOneRequest() {
        Cli.Run run = validate(3, "--json", "s3://hints/ckpt");
        JsonNode line = run.json().get(0);
        assertEquals("NOT_FOUND", line.get("code").asString(), run.describe());
        assertTrue(line.get("message").asString().contains("did you mean s3://hints/ckpt/? That prefix holds files"),
                run.describe());
        Cli.Run missing = validate(3, "--json", "s3://hints/nothing");
        JsonNode plain = missing.json().get(0);
        assertEquals("NOT_FOUND", plain.get("code").asString(), missing.describe());
        assertFalse(plain.get("message").asString().contains("did you mean"), missing.describe());
        // the failed read and the one listing request that looked for a prefix, found or not, both counted
        assertEquals(2, line.get("requests").asLong(), run.describe());
        assertEquals(2, plain.get("requests").asLong(), missing.describe());
        // a file's name names a file that is gone: no listing is spent on it
        Cli.Run gone = validate(3, "--json", "s3://hints/ckpt/gone.safetensors");
        assertEquals(1, gone.json().get(0).get("requests").asLong(), gone.describe());

        Cli.Run text = validate(3, "s3://hints/ckpt");
        assertTrue(text.stderr().contains("did you mean s3://hints/ckpt/?"), text.describe());
    }

    @Test
    void aOneLevelListingSaysHowManySubPrefixesItDidNotEnter() {
        Cli.Run run = validate(0, "s3://hints/");
        assertTrue(run.stderr().contains("; not entered: 2 subfolders or prefixes (--recursive lists them)"),
                run.describe());
        Cli.Run recursive = validate(0, "--recursive", "s3://hints/");
        assertFalse(recursive.stderr().contains("not entered"), recursive.describe());
    }
}
