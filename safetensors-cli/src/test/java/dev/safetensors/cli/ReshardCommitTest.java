package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.DType;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.Float32Narrowing;
import dev.safetensors.core.SafetensorsWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.output.OutOfMemory;

/**
 * {@code reshard} with the commit protocol and issue 23's misreports, in process: in place with {@code --force},
 * earlier layouts, {@code --out} mistakes, failures named by what failed, metadata that differs between shards,
 * {@code --prefix} and {@code --metadata} refusals, {@code --dtype}, and the part-memory bound.
 */
class ReshardCommitTest {
    @TempDir
    Path dir;

    private static ReshardTest.Run run(String... args) {
        return ReshardTest.run(args);
    }

    /** a (400 bytes), b (100), c (300), U8, with bytes that say which tensor they are. */
    private Path abc() throws IOException {
        Path f = dir.resolve("abc.safetensors");
        SafetensorsWriter.create().metadata("format", "pt")
                .tensor("a", DType.U8, new long[] {400}, filled(400, 1))
                .tensor("b", DType.U8, new long[] {100}, filled(100, 2))
                .tensor("c", DType.U8, new long[] {300}, filled(300, 3)).writeTo(f);
        return f;
    }

    private static byte[] filled(int n, int v) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) v);
        return b;
    }

    private static List<String> names(Path folder) throws IOException {
        try (var files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void anInPlaceReshardWithForceKeepsEveryTensor() throws IOException {
        Path out = dir.resolve("out");
        ReshardTest.Run first = run("reshard", abc().toString(), "--out", out.toString(), "--max-shard-size", "500B");
        assertEquals(0, first.exit(), first.describe());
        Path index = out.resolve("model.safetensors.index.json");
        ReshardTest.Run again = run("reshard", index.toString(), "--out", out.toString(), "--max-shard-size", "450B",
                "--force", "--json");
        assertEquals(0, again.exit(), again.describe());
        try (Checkpoint c = Checkpoint.open(index)) {
            assertTrue(c.shardOf("b").text().endsWith("model-00002-of-00002.safetensors"), "{a},{b,c} now");
            assertEquals(ByteBuffer.wrap(filled(100, 2)), c.readBytes("b"), "b survived the in-place reshard");
            assertEquals(ByteBuffer.wrap(filled(400, 1)), c.readBytes("a"));
            assertEquals(ByteBuffer.wrap(filled(300, 3)), c.readBytes("c"));
        }
        List<JsonNode> lines = again.json();
        assertEquals("output_shard", lines.get(0).get("kind").asString());
        assertTrue(lines.get(0).get("written").asBoolean());
        assertEquals("output_index", lines.get(2).get("kind").asString());
        assertEquals(index.toString(), lines.get(3).get("source").asString(), "source is what was read");
        assertEquals(List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                "model.safetensors.index.json"), names(out), "no temporary file or journal left");
    }

    @Test
    void anEarlierLayoutIsRefusedByNameAndRemovedWithForce() throws IOException {
        Path out = dir.resolve("out");
        Path src = abc();
        assertEquals(0, run("reshard", src.toString(), "--out", out.toString(), "--single").exit());
        ReshardTest.Run refused = run("reshard", src.toString(), "--out", out.toString(), "--max-shard-size", "450B");
        assertEquals(3, refused.exit(), refused.describe());
        assertTrue(refused.err().contains(out.resolve("model.safetensors").toString())
                && refused.err().contains("[ALREADY_EXISTS]") && refused.err().contains("--force"), refused.describe());
        ReshardTest.Run forced = run("reshard", src.toString(), "--out", out.toString(), "--max-shard-size", "450B",
                "--force");
        assertEquals(0, forced.exit(), forced.describe());
        assertEquals(List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                "model.safetensors.index.json"), names(out), "the single file is gone");
    }

    @Test
    void anExistingShardIsNamedInTheRefusal() throws IOException {
        Path out = dir.resolve("out");
        Path src = abc();
        assertEquals(0, run("reshard", src.toString(), "--out", out.toString(), "--max-shard-size", "450B").exit());
        ReshardTest.Run again = run("reshard", src.toString(), "--out", out.toString(), "--max-shard-size", "450B",
                "--json");
        assertEquals(3, again.exit(), again.describe());
        JsonNode line = again.json().get(0);
        assertEquals("ALREADY_EXISTS", line.get("code").asString());
        assertEquals(src.toString(), line.get("source").asString(), "source is what was read");
        assertEquals(out.resolve("model-00001-of-00002.safetensors").toString(), line.get("output").asString(),
                "the file in the way is named");
        assertTrue(line.get("message").asString().endsWith("; use --force to replace it"), "the way forward, decided by"
                + " the code, not the message: " + again.describe());
    }

    @Test
    void outMistakesAreToldClearly() throws IOException {
        Path src = abc();
        ReshardTest.Run empty = run("reshard", src.toString(), "--out", "");
        assertEquals(2, empty.exit(), empty.describe());
        Path file = Files.writeString(dir.resolve("plain.txt"), "x");
        ReshardTest.Run onFile = run("reshard", src.toString(), "--out", file.toString());
        assertEquals(3, onFile.exit(), onFile.describe());
        assertTrue(onFile.err().contains("is a file, not a folder") && onFile.err().contains("[WRITE_FAILED]"),
                onFile.describe());
        if (Files.isDirectory(Path.of("/proc/self"))) {
            ReshardTest.Run proc = run("reshard", src.toString(), "--out", "/proc/self");
            assertEquals(3, proc.exit(), proc.describe());
            assertTrue(proc.err().contains("[WRITE_FAILED]"), proc.describe());
        } else {
            System.err.println("SKIPPED the /proc/self case: no /proc on this system");
        }
    }

    @Test
    void aSourceThatCannotBeReadIsNamedAndNoFolderIsLeft() {
        Path out = dir.resolve("never");
        Path missing = dir.resolve("missing.safetensors");
        ReshardTest.Run r = run("reshard", missing.toString(), "--out", out.toString(), "--json");
        assertEquals(3, r.exit(), r.describe());
        JsonNode line = r.json().get(0);
        assertEquals("NOT_FOUND", line.get("code").asString());
        assertEquals(missing.toString(), line.get("source").asString());
        assertFalse(Files.exists(out), "no --out folder is created for a failed run");
    }

    @Test
    void shardsWithDifferentMetadataKeysReshardWithTheEntriesTheyShare() throws IOException {
        Path in = Files.createDirectory(dir.resolve("in"));
        for (int s = 1; s <= 2; s++) {
            SafetensorsWriter w = SafetensorsWriter.create().metadata("format", "pt");
            for (int k = 0; k < 30_000; k++) {
                w.metadata("shard" + s + ".key" + k, "v");
            }
            w.tensor("t" + s, DType.U8, new long[] {4}, filled(4, s)).writeTo(in.resolve("m-0000" + s
                    + "-of-00002.safetensors"));
        }
        Files.writeString(in.resolve("m.safetensors.index.json"), "{\"metadata\":{\"total_size\":8},\"weight_map\":"
                + "{\"t1\":\"m-00001-of-00002.safetensors\",\"t2\":\"m-00002-of-00002.safetensors\"}}");
        Path out = dir.resolve("out");
        ReshardTest.Run r = run("reshard", in.resolve("m.safetensors.index.json").toString(), "--out",
                out.toString(), "--max-shard-size", "4B");
        assertEquals(0, r.exit(), r.describe());
        assertEquals(java.util.Map.of("format", "pt"), dev.safetensors.core.Safetensors.readHeader(
                out.resolve("model-00001-of-00002.safetensors")).metadata(), "the entries every shard has");
    }

    @Test
    void prefixAndMetadataRefusals() throws IOException {
        Path src = abc();
        ReshardTest.Run prefix = run("reshard", src.toString(), "--out", dir.resolve("o").toString(), "--prefix",
                "€".repeat(200));
        assertEquals(2, prefix.exit(), prefix.describe());
        assertTrue(prefix.err().contains("--prefix"), prefix.describe());
        ReshardTest.Run meta = run("reshard", src.toString(), "--out", dir.resolve("o").toString(), "--metadata",
                "k=bad\uFFFDbyte");
        assertEquals(2, meta.exit(), meta.describe());
        assertTrue(meta.err().contains("not UTF-8"), meta.describe());
        assertFalse(Files.exists(dir.resolve("o")));
    }

    @Test
    void partBuffersBeyondTheHeapAreAUsageErrorWithTheFigure() throws IOException {
        Path src = abc();
        ReshardTest.Run r = run("reshard", src.toString(), "--out", dir.resolve("o").toString(), "--parallel", "64",
                "--part-size", "268435456");
        if (Runtime.getRuntime().maxMemory() / 2 >= 64L * 268435456) {
            System.err.println("SKIPPED: this JVM's heap holds 16 GiB of parts; nothing to refuse");
            return;
        }
        assertEquals(2, r.exit(), r.describe());
        assertTrue(r.err().contains("needs 17.2 GB of part buffers"), r.describe());
        ReshardTest.Run dump = run("dump", "--parallel", "64", "--part-size", "268435456", src.toString(), "a",
                "--out", dir.resolve("a.bin").toString());
        assertEquals(2, dump.exit(), dump.describe());
    }

    @Test
    void dtypeCastsFloatingTensorsAndLeavesTheOthers() throws IOException {
        float[] values = {1f, -2.5f, 3.14159f, 65504f, 1e-8f, Float.NaN};
        Path src = dir.resolve("mixed.safetensors");
        SafetensorsWriter.create().tensor("w", new long[] {6}, values)
                .tensor("ids", DType.I64, new long[] {2}, ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(7).putLong(-1).flip()).writeTo(src);
        Path out = dir.resolve("bf16");
        ReshardTest.Run r = run("reshard", src.toString(), "--out", out.toString(), "--dtype", "bf16", "--single");
        assertEquals(0, r.exit(), r.describe());
        try (Checkpoint c = Checkpoint.open(out.resolve("model.safetensors"))) {
            assertEquals(DType.BF16, c.tensor("w").dtype());
            assertEquals(Float32Narrowing.narrow(DType.BF16, values), c.readBytes("w"));
            assertEquals(DType.I64, c.tensor("ids").dtype(), "integers untouched");
            assertEquals(7L, c.readBytes("ids").order(ByteOrder.LITTLE_ENDIAN).getLong(0));
        }
        assertEquals(2, run("reshard", src.toString(), "--out", out.toString(), "--dtype", "F64").exit());
    }

    @Test
    void anOutOfMemoryErrorBehindAnIoFailureIsItsOwnCode() {
        java.io.IOException wrapped = new java.io.IOException("fetch failed", new OutOfMemoryError("Java heap"));
        assertTrue(OutOfMemory.in(wrapped));
        assertEquals(ErrorCode.OUT_OF_MEMORY, OutOfMemory.failure(wrapped).code());
        assertFalse(OutOfMemory.in(new java.io.IOException("plain")));
    }
}
