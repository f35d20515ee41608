package dev.safetensors.examples;

import dev.safetensors.ErrorCode;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Safetensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs every example against the committed sample data (tests run in the examples folder: data/ is the samples). */
@Isolated("replaces System.out to capture what the examples print")
class ExamplesTest {
    private static final Path SAMPLE = Path.of("data", "sample.safetensors");
    private static final String SHARDED_INDEX = Path.of("data", "sharded", "model.safetensors.index.json").toString();

    @TempDir
    Path dir;

    @Test
    void inspectLocalListsTensorsAndMetadata() throws IOException {
        String out = run(() -> InspectLocal.main(new String[0]));
        assertTrue(out.contains("4 tensors"), out);
        assertTrue(out.contains("metadata format = pt"), out);
        assertTrue(out.contains("layer0.attn.weight") && out.contains("BF16"), out);
    }

    @Test
    void copyTensorWritesTheRawBytes() throws IOException {
        Path output = dir.resolve("embed.bin");
        String out = run(() -> CopyTensor.main(new String[] {SAMPLE.toString(), "position_ids", output.toString()}));
        assertTrue(out.startsWith("copied 32 bytes of position_ids"), out);
        byte[] bytes = Files.readAllBytes(output);
        assertEquals(32, bytes.length);
        assertEquals(3, bytes[24], "the last I64 is 3, little-endian");
    }

    @Test
    void readFloatsWidensEveryFloatTensor() throws IOException {
        String out = run(() -> ReadFloats.main(new String[] {SAMPLE.toString()}));
        assertTrue(out.contains("embed.weight F32[4, 3] -> 12 floats"), out);
        assertTrue(out.contains("layer0.attn.weight BF16[3, 3] -> 9 floats, sum 3.6875"), out);
        assertTrue(out.contains("layer0.norm.weight F16[4] -> 4 floats, sum 0.5, first [1.0, 1.0, 0.5, -2.0]"), out);
        assertTrue(!out.contains("position_ids"), "I64 is not float-readable and is skipped: " + out);
    }

    @Test
    void mapTensorReadsTheSampleInPlace() throws IOException {
        String out = run(() -> MapTensor.main(new String[0]));
        assertTrue(out.startsWith("embed.weight F32[4, 3] mapped: 48 bytes, direct, read-only, LITTLE_ENDIAN"), out);
        assertTrue(out.contains("first values [-2.75, -2.25, -1.75, -1.25, -0.75, -0.25]"), out);
    }

    @Test
    void readAcrossShardsReadsATensorOfTheSecondShard() throws IOException {
        String out = run(() -> ReadAcrossShards.main(new String[0]));
        String shard1 = Path.of("data", "sharded", "model-00001-of-00002.safetensors").toString();
        String shard2 = Path.of("data", "sharded", "model-00002-of-00002.safetensors").toString();
        assertEquals(String.join(System.lineSeparator(),
                "Checkpoint[" + SHARDED_INDEX + ", 4 tensors in 2 files]",
                "  embed.weight         F32   [4, 3]  in " + shard1,
                "  layer0.attn.weight   BF16  [3, 3]  in " + shard1,
                "  layer0.norm.weight   F16   [4]     in " + shard2,
                "  position_ids         I64   [1, 4]  in " + shard2,
                // the index (310 bytes) and both shards' headers: each file fits one read, so one request each
                "  cost opened: 3 requests, 880 bytes",
                "layer0.norm.weight -> [1.0, 1.0, 0.5, -2.0]",
                "layer0.norm.weight[1:3] -> shape [2], [1.0, 0.5]",
                // only the second shard was opened (its 272 bytes read again); its tensors came with that read
                "  cost after the reads: 4 requests, 1152 bytes", ""), out);
    }

    @Test
    void readAcrossShardsOpensOnlyTheShardItReads() throws IOException {
        String out = run(() -> ReadAcrossShards.main(new String[] {SHARDED_INDEX, "embed.weight", "1", "3"}));
        assertTrue(out.contains(System.lineSeparator() + "embed.weight -> [-2.75, -2.25, -1.75, -1.25, -0.75, -0.25,"
                + " 0.25, 0.75, 1.25, 1.75, 2.25, 2.75]" + System.lineSeparator()), out);
        assertTrue(out.contains(System.lineSeparator() + "embed.weight[1:3] -> shape [2, 3], [-1.25, -0.75, -0.25,"
                + " 0.25, 0.75, 1.25]" + System.lineSeparator()), out);
        // the first shard's 298 bytes, not the second's
        assertTrue(out.endsWith("  cost after the reads: 4 requests, 1178 bytes" + System.lineSeparator()), out);
    }

    @Test
    void readAcrossShardsNamesAMissingTensor() {
        TensorAccessException e = assertThrows(TensorAccessException.class,
                () -> run(() -> ReadAcrossShards.main(new String[] {SHARDED_INDEX, "lm_head.weight"})));
        assertEquals(ErrorCode.TENSOR_NOT_FOUND, e.code());
        assertEquals(Optional.of("lm_head.weight"), e.tensor());
    }

    @Test
    void readAcrossShardsRefusesARangeOutsideTheTensor() {
        TensorAccessException e = assertThrows(TensorAccessException.class,
                () -> run(() -> ReadAcrossShards.main(new String[] {SHARDED_INDEX, "layer0.norm.weight", "2", "5"})));
        assertEquals(ErrorCode.INVALID_SLICE, e.code());
    }

    @Test
    void downloadCheckpointCopiesEveryFileOfTheShardedSampleVerified(@TempDir Path out)
            throws IOException {
        String printed = run(() -> DownloadCheckpoint.main(new String[] {SHARDED_INDEX, out.toString()}));
        Path sample = Path.of(SHARDED_INDEX).getParent();
        for (String f : List.of("model.safetensors.index.json", "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors")) {
            assertArrayEquals(Files.readAllBytes(sample.resolve(f)), Files.readAllBytes(out.resolve(f)), f);
        }
        assertEquals(3, printed.lines().count(), printed);
    }

    @Test
    void downloadCheckpointFetchesOnlyWhatItsGlobsSelectFromAFolderKeepingItsLayout(@TempDir Path out)
            throws IOException {
        String printed = run(() -> DownloadCheckpoint.main(new String[] {"data/", out.toString(), "*.json",
                "sample.*"}));
        assertArrayEquals(Files.readAllBytes(Path.of(SHARDED_INDEX)),
                Files.readAllBytes(out.resolve("sharded/model.safetensors.index.json")));
        assertArrayEquals(Files.readAllBytes(Path.of("data", "sample.safetensors")),
                Files.readAllBytes(out.resolve("sample.safetensors")));
        assertFalse(Files.exists(out.resolve("sharded/model-00001-of-00002.safetensors")), "no shard: not selected");
        assertEquals(2, printed.lines().count(), printed);
    }

    @Test
    void writeCheckpointWritesAValidFile() throws IOException {
        Path output = dir.resolve("checkpoint.safetensors");
        String out = run(() -> WriteCheckpoint.main(new String[] {output.toString()}));
        assertTrue(out.contains("global_step -> 1000"), out);
        SafetensorsHeader h = Safetensors.readHeader(output);
        assertEquals(3, h.tensors().size());
        assertEquals("pt", h.metadata().get("format"));
    }

    @Test
    void theCommittedSamplesAreWhatWriteSamplesWrites() throws IOException {
        run(() -> WriteSamples.main(new String[] {dir.toString()}));
        for (String file : new String[] {"sample.safetensors", "sharded/model-00001-of-00002.safetensors",
                "sharded/model-00002-of-00002.safetensors", "sharded/model.safetensors.index.json"}) {
            assertArrayEquals(Files.readAllBytes(Path.of("data").resolve(file)), Files.readAllBytes(dir.resolve(file)),
                    file + " is out of date: run WriteSamples");
        }
    }

    @Test
    void theIndexTotalSizeIsTheSumOfTheShardsTensorBytes() throws IOException {
        long total = 0;
        try (Stream<Path> shards = Files.list(Path.of("data", "sharded"))) {
            for (Path shard : shards.filter(p -> p.toString().endsWith(".safetensors")).toList()) {
                for (TensorInfo t : Safetensors.readHeader(shard).tensors()) {
                    total += t.byteLength();
                }
            }
        }
        String index = Files.readString(Path.of("data", "sharded", "model.safetensors.index.json"));
        assertTrue(index.contains("\"total_size\" : " + total), index);
    }

    @FunctionalInterface
    private interface Main {
        void run() throws IOException;
    }

    /** Runs an example and returns what it printed. */
    private static String run(Main main) throws IOException {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            main.run();
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
