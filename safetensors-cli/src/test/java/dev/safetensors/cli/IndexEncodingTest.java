package dev.safetensors.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Regression (issue 23 item 10): an index that is not UTF-8 (the bounded fuzz run's 17 bytes, which jackson's
 * encoding detection took for UTF-32) is an invalid index, exit 1, never an {@code IO_ERROR} from an escaped
 * {@link Error}.
 */
class IndexEncodingTest {
    @TempDir
    Path dir;

    @Test
    void anIndexThatIsNotUtf8IsInvalidNotAnError() throws Exception {
        byte[] index = new byte[17];
        index[0] = '{';
        index[5] = 4;
        System.arraycopy("map\":[]}".getBytes(StandardCharsets.US_ASCII), 0, index, 9, 8);
        Path file = Files.write(dir.resolve("model.safetensors.index.json"), index);
        Cli.Run run = InProcess.run("validate", "--json", file.toString()).exits(1);
        JsonNode r = run.json().get(0);
        assertEquals("checkpoint", r.get("kind").asString(), run.describe());
        assertEquals("INVALID_INDEX", r.get("code").asString(), run.describe());
    }
}
