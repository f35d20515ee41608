package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One logical checkpoint over a single file or a local index: the tensor view, lazy shards, the cross-check. */
class CheckpointTest {
    @TempDir
    Path dir;

    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";

    private Path twoShards(String index) throws IOException {
        Files.write(dir.resolve(SHARD1), SafetensorsFixture.create().tensor("a", "F32", 2, 3)
                .tensor("c", "F16", 4).build());
        Files.write(dir.resolve(SHARD2), SafetensorsFixture.create().tensor("b", "BF16", 5).build());
        Path p = dir.resolve("model.safetensors.index.json");
        Files.writeString(p, index);
        return p;
    }

    private static String index(long totalSize) {
        return "{\"metadata\":{\"total_size\":" + totalSize + "},\"weight_map\":{\"a\":\"" + SHARD1 + "\",\"b\":\""
                + SHARD2 + "\",\"c\":\"" + SHARD1 + "\"}}";
    }

    @Test
    void anIndexIsOneViewOfEveryTensorAcrossItsShards() throws Exception {
        Path p = twoShards(index(24 + 8 + 10));
        try (Checkpoint c = Checkpoint.open(p)) {
            assertEquals(List.of("a", "c", "b"), c.tensors().stream().map(t -> t.name()).toList());
            assertEquals(DType.BF16, c.tensor("b").dtype());
            assertArrayEquals(new long[] {2, 3}, c.tensor("a").shape());
            assertEquals(dev.safetensors.Location.of(dir.resolve(SHARD2)), c.shardOf("b"));
            assertTrue(c.files().isSharded());
            ByteBuffer expected = SafetensorsFile.open(dir.resolve(SHARD2)).readBytes("b");
            assertEquals(expected, c.readBytes("b"));
            assertEquals(6, c.readFloat32("a").length);
            assertSame(c.file("a"), c.file("c"), "one shard, opened once");
        }
    }

    @Test
    void aFolderHoldingAnIndexOpensAsItsCheckpoint() throws Exception {
        twoShards(index(24 + 8 + 10));
        Files.write(dir.resolve("notes.safetensors.txt"), new byte[] {1});
        for (String folder : List.of(dir.toString(), dir + java.io.File.separator)) {
            try (Checkpoint c = Checkpoint.open(folder)) {
                assertEquals(List.of("a", "c", "b"), c.tensors().stream().map(t -> t.name()).toList(), folder);
            }
        }
    }

    @Test
    void aFolderOfOneFileOpensItAndAFolderOfSeveralAsksWhichOne() throws Exception {
        Path one = Files.createDirectory(dir.resolve("one"));
        Files.write(one.resolve("weights.safetensors"), SafetensorsFixture.create().tensor("w", "F32", 2).build());
        try (Checkpoint c = Checkpoint.open(one)) {
            assertEquals(List.of("w"), c.tensors().stream().map(t -> t.name()).toList());
        }
        Files.write(one.resolve("other.safetensors"), SafetensorsFixture.create().tensor("v", "F32", 2).build());
        dev.safetensors.InvalidLocationException several = assertThrows(
                dev.safetensors.InvalidLocationException.class, () -> Checkpoint.open(one));
        assertEquals(dev.safetensors.ErrorCode.INVALID_SOURCE, several.code());
        // the preferred name decides between several
        Files.write(one.resolve("model.safetensors"), SafetensorsFixture.create().tensor("m", "F32", 2).build());
        try (Checkpoint c = Checkpoint.open(one)) {
            assertEquals(List.of("m"), c.tensors().stream().map(t -> t.name()).toList());
        }
        Path empty = Files.createDirectory(dir.resolve("empty"));
        dev.safetensors.SourceNotFoundException none = assertThrows(dev.safetensors.SourceNotFoundException.class,
                () -> Checkpoint.open(empty));
        assertEquals(dev.safetensors.ErrorCode.NOT_FOUND, none.code());
    }

    @Test
    void aShardIsOpenedOnceHoweverManyThreadsAsk() throws Exception {
        Path p = twoShards(index(42));
        try (Checkpoint c = Checkpoint.open(p)) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Callable<SafetensorsFile>> asks = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    String name = i % 2 == 0 ? "a" : "c";
                    asks.add(() -> c.file(name));
                }
                List<Future<SafetensorsFile>> got = pool.invokeAll(asks, 30, TimeUnit.SECONDS);
                for (Future<SafetensorsFile> f : got) {
                    assertSame(got.get(0).get(), f.get());
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void aSingleFileIsACheckpointOfOneFile() throws Exception {
        Path f = dir.resolve("model.safetensors");
        Files.write(f, SafetensorsFixture.create().tensor("w", "F32", 3).build());
        try (Checkpoint c = Checkpoint.open(f.toString())) {
            assertEquals(1, c.headers().size());
            assertEquals(List.of(dev.safetensors.Location.of(f)), c.files().shards());
            assertEquals(3, c.readFloat32("w").length);
        }
    }

    @Test
    void anUnknownTensorAndAClosedCheckpointFailCleanly() throws Exception {
        Path p = twoShards(index(42));
        Checkpoint c = Checkpoint.open(p);
        TensorAccessException e = assertThrows(TensorAccessException.class, () -> c.readBytes("nope"));
        assertEquals(ErrorCode.TENSOR_NOT_FOUND, e.code());
        c.readBytes("a");
        c.close();
        assertEquals(ErrorCode.IO_ERROR, assertThrows(StorageException.class, () -> c.readBytes("a")).code());
        assertEquals(ErrorCode.IO_ERROR, assertThrows(StorageException.class, () -> c.readBytes("b"),
                "a shard never opened stays closed").code());
    }

    @Test
    void anIndexThatDisagreesWithItsShardsDoesNotOpen() throws Exception {
        InvalidHeaderException size = assertThrows(InvalidHeaderException.class,
                () -> Checkpoint.open(twoShards(index(41))));
        assertEquals(ErrorCode.INVALID_INDEX, size.code());
        InvalidHeaderException moved = assertThrows(InvalidHeaderException.class, () -> Checkpoint.open(twoShards(
                "{\"weight_map\":{\"a\":\"" + SHARD2 + "\",\"b\":\"" + SHARD2 + "\",\"c\":\"" + SHARD1 + "\"}}")));
        assertEquals(ErrorCode.INVALID_INDEX, moved.code());
        assertTrue(moved.getMessage().contains("\"a\""), moved.getMessage());
    }

    @Test
    void aShardReplacedAfterOpeningIsASourceChange() throws Exception {
        Path p = twoShards(index(42));
        try (Checkpoint c = Checkpoint.open(p)) {
            Files.write(dir.resolve(SHARD2), SafetensorsFixture.create().tensor("b", "BF16", 5).metadata("k", "v")
                    .build());
            dev.safetensors.SourceChangedException e = assertThrows(dev.safetensors.SourceChangedException.class,
                    () -> c.readBytes("b"));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        }
    }

    @Test
    void metadataSumsEveryShardAndSaysHowItCounted() throws Exception {
        twoShards(index(42));
        List<CheckpointMetadata> all = CheckpointMetadata.readAll(dir.resolve("model.safetensors.index.json")
                .toString());
        assertEquals(1, all.size());
        CheckpointMetadata m = all.get(0);
        assertEquals(3, m.tensorCount());
        assertEquals(Map.of(DType.F32, 6L, DType.F16, 4L, DType.BF16, 5L), m.parameters());
        assertEquals(Map.of(DType.F32, 24L, DType.F16, 8L, DType.BF16, 10L), m.bytes());
        assertEquals(15, m.totalParameters());
        assertEquals(42, m.totalBytes());
        assertEquals(2, m.headers().size());
        assertTrue(m.counting().startsWith("stored elements"), m.counting());
        assertEquals(false, m.fromConfig());
        assertEquals(1 + 2, m.cost().requests(), "the index, then one header read per shard");
    }
}
