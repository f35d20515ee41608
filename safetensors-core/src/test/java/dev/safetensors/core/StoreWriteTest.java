package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.StorageException;
import dev.safetensors.TensorInfo;
import dev.safetensors.spi.UploadOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sharded writer on a store without rename: shards before the index, refusals without replacing, and the
 * guarantee that a write stopped after any of its mutations never leaves an index naming a shard of the other
 * generation, and that a rerun finishes with the new layout alone.
 */
class StoreWriteTest {
    private static final String OUT = "mem://bucket/out/";
    private static final int TENSORS = 6;
    private static final int TENSOR_BYTES = 100;

    /** Stops a write where a SIGKILL could. */
    private static final class Killed extends RuntimeException {
        Killed(int step) {
            super("killed after step " + step);
        }
    }

    @Test
    void shardsAreUploadedFirstAndTheIndexLastAndReadBackEqual() throws Exception {
        MemoryStore store = new MemoryStore();
        List<Location> written = write(store, writer("A", 200), false);
        assertEquals(List.of("model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
                "model-00003-of-00003.safetensors", "model.safetensors.index.json"),
                written.stream().map(Location::fileName).toList());
        assertEquals(List.of("put " + OUT + "model-00001-of-00003.safetensors",
                "put " + OUT + "model-00002-of-00003.safetensors", "put " + OUT + "model-00003-of-00003.safetensors",
                "put " + OUT + "model.safetensors.index.json"), store.mutations());
        assertEquals("A", wholeGeneration(store));
        try (SourceRegistry registry = registry(store);
             Checkpoint checkpoint = SafetensorsClient.builder().registry(registry).build()
                     .openCheckpoint(Location.parse(OUT + "model.safetensors.index.json"))) {
            for (int i = 0; i < TENSORS; i++) {
                ByteBuffer bytes = checkpoint.readBytes("t" + i);
                assertEquals(ByteBuffer.wrap(tensorBytes("A", i)), bytes);
            }
        }
    }

    @Test
    void aSecondWriteWithoutReplacingIsRefusedAndChangesNothing() throws Exception {
        MemoryStore store = new MemoryStore();
        write(store, writer("A", 200), false);
        List<String> before = store.mutations();
        StorageException e = assertThrows(StorageException.class, () -> write(store, writer("B", 200), false));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
        assertTrue(e.getMessage().contains("model-00001-of-00003.safetensors"), e.getMessage());
        assertEquals(before, store.mutations());
    }

    @Test
    void anEarlierLayoutIsRefusedWithoutReplacingAndDeletedWithIt() throws Exception {
        MemoryStore store = new MemoryStore();
        store.put(OUT + "config.json", "{}".getBytes(StandardCharsets.UTF_8));
        write(store, writer("A", Long.MAX_VALUE), false);
        StorageException e = assertThrows(StorageException.class, () -> write(store, writer("B", 200), false));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
        assertTrue(e.getMessage().contains("model.safetensors"), e.getMessage());
        write(store, writer("B", 200), true);
        assertEquals(new TreeSet<>(List.of("config.json", "model-00001-of-00003.safetensors",
                "model-00002-of-00003.safetensors", "model-00003-of-00003.safetensors",
                "model.safetensors.index.json")), store.names(OUT), "the user's own file stays");
        assertEquals("B", wholeGeneration(store));
    }

    @Test
    void overwritingShardsOfTheSameNamesDeletesTheOldIndexFirst() throws Exception {
        MemoryStore store = new MemoryStore();
        write(store, writer("A", 200), false);
        int before = store.mutations().size();
        write(store, writer("B", 200), true);
        assertEquals("delete " + OUT + "model.safetensors.index.json", store.mutations().get(before));
        assertEquals("put " + OUT + "model.safetensors.index.json", store.mutations().get(store.mutations().size() - 1));
        assertEquals("B", wholeGeneration(store));
    }

    @Test
    void anotherCheckpointsIndexBesideItSurvivesAReplacingWrite() throws Exception {
        MemoryStore store = new MemoryStore();
        byte[] other = "{\"metadata\":{},\"weight_map\":{}}".getBytes(StandardCharsets.UTF_8);
        store.put(OUT + "unet.safetensors.index.json", other);
        write(store, writer("A", 200), false);
        write(store, writer("B", 200), true);
        assertTrue(Arrays.equals(other, store.bytes(OUT + "unet.safetensors.index.json")),
                "an index of another prefix is no file of this write's");
        assertEquals("B", wholeGeneration(store));
    }

    /**
     * Over a checkpoint of 3 shards, a replacing write of 3 shards (the same names), 2 shards, or one file, stopped
     * after each of its mutations in turn: whatever index is visible names shards of its own generation only, and a
     * rerun leaves the new layout alone; a rerun without replacing is refused.
     */
    @ParameterizedTest
    @ValueSource(longs = {200, 300, Long.MAX_VALUE})
    void aReplacingWriteStoppedAfterAnyStepNeverMixesGenerations(long newShardBytes) throws Exception {
        SortedSet<String> finalLayout = null;
        int steps = countSteps(newShardBytes);
        assertTrue(steps >= 2, "at least one upload and one delete");
        for (int stop = 1; stop <= steps; stop++) {
            MemoryStore store = new MemoryStore();
            write(store, writer("A", 200), false);
            int at = stop;
            ShardedWriter killed = writer("B", newShardBytes).onCommitStep(step -> {
                if (step == at) {
                    throw new Killed(step);
                }
            });
            assertThrows(Killed.class, () -> write(store, killed, true));
            String visible = wholeGeneration(store);
            assertTrue(visible.equals("A") || visible.equals("B") || visible.isEmpty(), visible);
            if (stop < steps) {
                assertThrows(StorageException.class, () -> write(store, writer("B", newShardBytes), false),
                        "debris of an unfinished write is refused without replacing");
            }
            write(store, writer("B", newShardBytes), true);
            assertEquals("B", wholeGeneration(store), "after stop " + stop);
            if (finalLayout == null) {
                finalLayout = store.names(OUT);
            }
            assertEquals(finalLayout, store.names(OUT), "after stop " + stop + ": the new layout alone");
            assertEquals(new TreeSet<>(writer("B", newShardBytes).fileNames()), store.names(OUT));
        }
    }

    @Test
    void aSingleFileWriteOverItselfIsOneOverwrite() throws Exception {
        MemoryStore store = new MemoryStore();
        write(store, writer("A", Long.MAX_VALUE), false);
        int before = store.mutations().size();
        write(store, writer("B", Long.MAX_VALUE), true);
        assertEquals(List.of("put " + OUT + "model.safetensors"), store.mutations().subList(before,
                store.mutations().size()));
        assertEquals("B", wholeGeneration(store));
    }

    @Test
    void aStoreNoWriterServesIsUnsupported() {
        MemoryStore store = new MemoryStore();
        try (SourceRegistry registry = SourceRegistry.builder().provider(store).build()) {
            dev.safetensors.InvalidLocationException e = assertThrows(dev.safetensors.InvalidLocationException.class,
                    () -> writer("A", 200).writeTo(Location.parse(OUT), registry, UploadOptions.DEFAULT));
            assertEquals(ErrorCode.UNSUPPORTED_SCHEME, e.code());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertTrue(store.names(OUT).isEmpty());
    }

    private static int countSteps(long newShardBytes) throws IOException {
        MemoryStore store = new MemoryStore();
        write(store, writer("A", 200), false);
        int before = store.mutations().size();
        write(store, writer("B", newShardBytes), true);
        return store.mutations().size() - before;
    }

    private static List<Location> write(MemoryStore store, ShardedWriter writer, boolean replace) throws IOException {
        try (SourceRegistry registry = registry(store)) {
            return writer.replaceExisting(replace).writeTo(Location.parse(OUT), registry, UploadOptions.DEFAULT);
        }
    }

    private static SourceRegistry registry(MemoryStore store) {
        return SourceRegistry.builder().provider(store).writer(store).build();
    }

    private static ShardedWriter writer(String generation, long maxShardBytes) {
        ShardedWriter w = ShardedWriter.create(maxShardBytes).metadata("generation", generation);
        for (int i = 0; i < TENSORS; i++) {
            w.tensor("t" + i, dev.safetensors.DType.U8, new long[] {TENSOR_BYTES}, tensorBytes(generation, i));
        }
        return w;
    }

    private static byte[] tensorBytes(String generation, int tensor) {
        byte[] b = new byte[TENSOR_BYTES];
        Arrays.fill(b, (byte) (generation.charAt(0) * 16 + tensor));
        return b;
    }

    /**
     * @return the generation the prefix shows a loader: the index's (every shard it names present, of one generation,
     *         holding exactly the tensors the index maps to it, with that generation's bytes), else the single file's,
     *         else "" when there is no entry point
     */
    private static String wholeGeneration(MemoryStore store) throws IOException {
        byte[] index = store.bytes(OUT + "model.safetensors.index.json");
        if (index == null) {
            byte[] single = store.bytes(OUT + "model.safetensors");
            return single == null ? "" : generationOf("model.safetensors", single, null);
        }
        ShardIndex parsed = ShardIndex.parse("index", index);
        Set<String> generations = new HashSet<>();
        for (String shard : parsed.shards()) {
            byte[] bytes = store.bytes(OUT + shard);
            assertTrue(bytes != null, "the index names " + shard + ", which is missing");
            Set<String> mapped = new HashSet<>();
            parsed.weightMap().forEach((tensor, file) -> {
                if (file.equals(shard)) {
                    mapped.add(tensor);
                }
            });
            generations.add(generationOf(shard, bytes, mapped));
        }
        assertEquals(1, generations.size(), "the index names shards of " + generations);
        return generations.iterator().next();
    }

    private static String generationOf(String name, byte[] file, Set<String> expectedTensors) throws IOException {
        long headerLength = ByteBuffer.wrap(file, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        byte[] json = Arrays.copyOfRange(file, 8, 8 + (int) headerLength);
        SafetensorsHeader header = Safetensors.parseHeader(name, json, file.length, Limits.STRICT);
        String generation = header.metadata().get("generation");
        Set<String> names = new HashSet<>();
        for (TensorInfo t : header.tensors()) {
            names.add(t.name());
            int index = Integer.parseInt(t.name().substring(1));
            byte[] data = Arrays.copyOfRange(file, (int) (8 + headerLength + t.begin()),
                    (int) (8 + headerLength + t.end()));
            assertTrue(Arrays.equals(tensorBytes(generation, index), data), name + ": " + t.name() + " is whole");
        }
        if (expectedTensors != null) {
            assertEquals(expectedTensors, names, name + " holds what the index maps to it");
        }
        return generation;
    }
}
