package dev.safetensors.examples.memory;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example runs on the sample data and prints what the sample holds; and the JDK 22 snippets of
 * docs/tensor-access.md (which the JDK 17 doc-snippet test cannot compile) are lines of this compiled example.
 */
class MapAnySizeTest {
    private static final Path ROOT = Path.of("..", "..");

    private static String run(String... args) throws IOException {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            MapAnySize.main(args);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void mapsTheSampleTensorAndReadsItsElements() throws IOException {
        String out = run(ROOT.resolve("examples/data/sample.safetensors").toString(), "embed.weight");
        assertEquals(List.of("embed.weight F32[4, 3]: 48 bytes", "last element: 2.75",
                "first elements: [-2.75, -2.25, -1.75, -1.25]", "read-only: true"), out.lines().toList());
        String bf16 = run(ROOT.resolve("examples/data/sample.safetensors").toString(), "layer0.attn.weight");
        assertTrue(bf16.startsWith("layer0.attn.weight BF16[3, 3]: 18 bytes"), bf16);
    }

    @Test
    void theDocsJdk22SnippetsAreLinesOfThisExample() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/tensor-access.md"));
        String source = Files.readString(Path.of("src/main/java/dev/safetensors/examples/memory/MapAnySize.java"));
        Matcher m = Pattern.compile("(?m)^```java\\n// JDK 22\\+.*\\n(.*?)^```", Pattern.DOTALL).matcher(doc);
        int blocks = 0;
        while (m.find()) {
            blocks++;
            for (String line : m.group(1).lines().toList()) {
                assertTrue(line.isBlank() || source.contains(line.strip()), "not in MapAnySize.java: " + line);
            }
        }
        assertFalse(blocks == 0, "docs/tensor-access.md shows the segments example");
    }
}
