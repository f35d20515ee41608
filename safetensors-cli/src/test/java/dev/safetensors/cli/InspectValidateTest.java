package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code inspect} and {@code validate}: text and JSON output, policies, exit codes, order under {@code --jobs}. */
class InspectValidateTest {
    @TempDir
    Path dir;

    @Test
    void inspectSummarizesTheSampleCheckpoint() {
        Path sample = Cli.examples().resolve("sample.safetensors");
        Cli.Run run = InProcess.run("inspect", sample.toString()).exits(0);
        String out = run.out();
        assertTrue(out.startsWith(sample + "\n"), run.describe());
        assertTrue(out.contains("status      OK (checks: prefix, header, layout)"), run.describe());
        assertTrue(out.contains("tensors     4 tensors, 29 parameters"), run.describe());
        assertTrue(out.contains("F32     1 tensor     12 parameters      48 B"), run.describe());
        assertTrue(out.contains("size        482 B (482 bytes): header 368 B, payload 106 B, payload 8-byte"
                + " aligned"), run.describe());
        assertTrue(out.contains("metadata    format: pt"), run.describe());
        assertTrue(out.contains("cost        1 read request, 482 B read"), run.describe());
        assertEquals("", run.stderr(), run.describe());
    }

    @Test
    void inspectTensorsListsNameDtypeShapeAndBytes() {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Cli.Run run = InProcess.run("inspect", "--tensors", file.toString()).exits(0);
        assertTrue(run.out().contains("NAME    DTYPE    SHAPE                      BYTES"), run.describe());
        assertTrue(run.out().contains("weight  F32      [2, 3]                      24 B"), run.describe());
        assertTrue(run.out().contains("step    I64      [2]                         16 B"), run.describe());
    }

    @Test
    void readableNumbersForLargeCheckpoints() {
        // 7.6 billion BF16 parameters declared over a sparse payload: only the header is read
        Path file = Fixtures.sparse(dir.resolve("big.safetensors"),
                SafetensorsFixture.create().tensor("w", "BF16", 76_000, 100_000).headerJson(), 2L * 76_000 * 100_000);
        Cli.Run run = InProcess.run("inspect", file.toString()).exits(0);
        assertTrue(run.out().contains("1 tensor, 7.6 B parameters (7,600,000,000)"), run.describe());
        assertTrue(run.out().contains("BF16    1 tensor     7.6 B parameters   15.2 GB"), run.describe());
        assertTrue(run.out().contains("size        15.2 GB (15,200,000,088 bytes): header 80 B, payload 15.2 GB"),
                run.describe());
    }

    @Test
    void validateExitCodesFollowTheWorstSource() {
        Path ok = Fixtures.write(dir, "ok.safetensors", Fixtures.small().build());
        Path invalid = Fixtures.write(dir, "gap.safetensors", SafetensorsFixture.create()
                .tensor("w", "F32", new long[] {1}, 4, 8).build());
        Path unsupported = Fixtures.write(dir, "f8.safetensors", SafetensorsFixture.create()
                .tensor("w", "F8_E4M3", 4).build());
        Path missing = dir.resolve("missing.safetensors");

        InProcess.run("validate", ok.toString()).exits(0);
        Cli.Run mixed = InProcess.run("validate", ok.toString(), invalid.toString(), unsupported.toString()).exits(1);
        assertEquals(List.of(
                "OK          " + ok + ": 3 tensors, 12 parameters, " + ok.toFile().length() + " B",
                "INVALID     " + invalid + ": tensor \"w\": payload bytes [0, 4) belong to no tensor [OFFSETS_GAP]",
                "UNSUPPORTED " + unsupported + ": tensor \"w\": dtype \"F8_E4M3\" is not supported by this policy;"
                        + " accepted: BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 (at header byte"
                        + " 14); --policy official accepts every dtype the official format names"
                        + " [UNSUPPORTED_DTYPE]"),
                mixed.outLines(), mixed.describe());
        Cli.Run withError = InProcess.run("validate", invalid.toString(), missing.toString()).exits(3);
        assertEquals(1, withError.outLines().size(), withError.describe());
        assertEquals(List.of("ERROR       " + missing + ": no such file: check the path [NOT_FOUND]"),
                withError.errLines(), withError.describe());
        InProcess.run("validate", "--policy", "official", unsupported.toString()).exits(0);
        InProcess.run("validate", "--policy", "OFFICIAL", ok.toString()).exits(0);
    }

    @Test
    void maxHeaderBytesBoundsTheHeader() {
        Path ok = Fixtures.write(dir, "ok.safetensors", Fixtures.small().build());
        Cli.Run run = InProcess.run("validate", "--json", "--max-header-bytes", "64", ok.toString()).exits(1);
        JsonNode r = run.json().get(0);
        assertEquals("HEADER_TOO_LARGE", r.get("code").asString(), run.describe());
        assertTrue(r.get("message").asString().contains("--max-header-bytes"), run.describe());
        assertEquals("fail", r.get("checks").get("prefix").asString(), run.describe());
    }

    @Test
    void jsonLinesCarryTheWholeSchema() {
        Path ok = Fixtures.write(dir, "ok.safetensors", Fixtures.small().build());
        Path bad = Fixtures.write(dir, "bad.safetensors", "{\"not\": \"safetensors\"}");
        Path missing = dir.resolve("missing.safetensors");
        Cli.Run run = InProcess.run("inspect", "--json", "--tensors", ok.toString(), bad.toString(), missing.toString())
                .exits(3);
        assertEquals("", run.stderr(), "JSON mode keeps stderr quiet\n" + run.describe());
        List<JsonNode> lines = run.json();
        assertEquals(3, lines.size(), run.describe());

        JsonNode valid = lines.get(0);
        for (String field : new String[] {"source", "kind", "status", "size", "header_bytes", "payload_bytes",
            "payload_aligned", "tensor_count", "parameters", "dtypes", "metadata", "checks", "requests",
            "bytes_read", "attributes", "tensors"}) {
            assertTrue(valid.has(field), field + "\n" + run.describe());
        }
        assertFalse(valid.has("code") || valid.has("message"), run.describe());
        assertEquals(ok.toString(), valid.get("source").asString());
        assertEquals("file", valid.get("kind").asString());
        assertEquals("valid", valid.get("status").asString());
        assertEquals(ok.toFile().length(), valid.get("size").asLong());
        assertEquals(3, valid.get("tensor_count").asInt());
        assertEquals(12, valid.get("parameters").asLong());
        assertEquals(24, valid.get("dtypes").get("F32").get("bytes").asLong());
        assertEquals(6, valid.get("dtypes").get("F32").get("parameters").asLong());
        assertEquals(1, valid.get("dtypes").get("BF16").get("tensors").asLong());
        assertEquals("pt", valid.get("metadata").get("format").asString());
        assertEquals("pass", valid.get("checks").get("layout").asString());
        assertEquals(1, valid.get("requests").asInt());
        assertEquals(ok.toFile().length(), valid.get("bytes_read").asLong());
        JsonNode weight = valid.get("tensors").get(0);
        assertEquals("weight", weight.get("name").asString());
        assertEquals("F32", weight.get("dtype").asString());
        assertEquals("[2,3]", weight.get("shape").toString());
        assertEquals("[0,24]", weight.get("data_offsets").toString());
        assertEquals(24, weight.get("bytes").asLong());

        JsonNode invalid = lines.get(1);
        assertEquals("invalid", invalid.get("status").asString());
        assertEquals("HEADER_TOO_LARGE", invalid.get("code").asString(), run.describe());
        assertTrue(invalid.get("tensor_count").isNull());
        assertEquals(bad.toFile().length(), invalid.get("size").asLong());

        JsonNode error = lines.get(2);
        assertEquals("error", error.get("status").asString());
        assertEquals("NOT_FOUND", error.get("code").asString());
        assertTrue(error.get("size").isNull());
        assertEquals(0, error.get("requests").asInt());
    }

    @Test
    void manySourcesInParallelKeepTheirOrder() {
        List<String> args = new ArrayList<>(List.of("validate", "--jobs", "16"));
        for (int i = 0; i < 60; i++) {
            SafetensorsFixture f = SafetensorsFixture.create();
            for (int t = 0; t <= i % 7; t++) {
                f.tensor("t" + t, "F32", 1 + (i * 13 + t) % 50);
            }
            args.add(Fixtures.write(dir, "f" + i + ".safetensors", f.build()).toString());
        }
        Cli.Run run = InProcess.run(args.toArray(String[]::new)).exits(0);
        List<String> lines = run.outLines();
        assertEquals(60, lines.size(), run.describe());
        for (int i = 0; i < 60; i++) {
            assertTrue(lines.get(i).startsWith("OK          " + dir.resolve("f" + i + ".safetensors") + ": "
                    + (i % 7 + 1) + " tensor"), lines.get(i));
        }
    }
}
