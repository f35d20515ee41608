package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.CheckpointLimits;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RepositoryCheckpoint;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.core.internal.index.QuantizationConfig;

/**
 * {@link SafetensorsClient}: every location of a checkpoint (index, shards, listing) goes through the caller's
 * registry and is held to the caller's limits; shard headers are read once; every shard gets a verdict.
 */
class SafetensorsClientTest {
    private static final String INDEX = "mem://b/m/model.safetensors.index.json";
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";

    private static byte[] index() {
        return ("{\"weight_map\":{\"a\":\"" + SHARD1 + "\",\"b\":\"" + SHARD2 + "\",\"c\":\"" + SHARD1 + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static MemoryStore store(byte[] shard1, byte[] shard2) {
        return new MemoryStore().put(INDEX, index())
                .put("mem://b/m/" + SHARD1 + "?rev=c0ffee", shard1)
                .put("mem://b/m/" + SHARD2 + "?rev=c0ffee", shard2);
    }

    private static byte[] shard1() {
        return SafetensorsFixture.create().tensor("a", "F32", 2, 3).tensor("c", "F16", 4).build();
    }

    private static byte[] shard2() {
        return SafetensorsFixture.create().tensor("b", "BF16", 5).build();
    }

    private static SafetensorsClient options(MemoryStore store, Limits limits) {
        return options(store, limits, CheckpointLimits.DEFAULT);
    }

    private static SafetensorsClient options(MemoryStore store, Limits limits, CheckpointLimits checkpointLimits) {
        // no installed provider: whatever does not go through the caller's store cannot be opened at all
        return SafetensorsClient.builder().registry(SourceRegistry.builder().provider(store).build()).limits(limits)
                .checkpointLimits(checkpointLimits).readOptions(ReadOptions.builder().parallelism(2).build()).build();
    }

    @Test
    void theIndexAndEveryShardAreOpenedThroughTheCallersRegistryAndPlacedByItsProvider() throws Exception {
        MemoryStore store = store(shard1(), shard2());
        try (Checkpoint c = options(store, Limits.STRICT).openCheckpoint(Location.parse(INDEX))) {
            assertEquals(3, store.opens(), "the index and two shards");
            assertEquals(Location.parse("mem://b/m/" + SHARD2 + "?rev=c0ffee"), c.shardOf("b"),
                    "the provider's sibling hook placed the shard");
            assertEquals(List.of("a", "c", "b"), c.tensors().stream().map(t -> t.name()).toList());
        }
    }

    @Test
    void aPrefixHoldingAnIndexOpensAsItsCheckpointThroughOneListing() throws Exception {
        MemoryStore store = store(shard1(), shard2());
        try (Checkpoint c = options(store, Limits.STRICT).openCheckpoint(Location.parse("mem://b/m/"))) {
            assertEquals(List.of("a", "c", "b"), c.tensors().stream().map(t -> t.name()).toList());
            assertEquals(1 + 1 + 2, store.requests(), "the listing, the index and one header read per shard");
        }
    }

    @Test
    void aShardHeaderIsReadOnceAndItsSourceReusedForTensorReads() throws Exception {
        byte[] one = shard1();
        MemoryStore store = store(one, shard2());
        try (Checkpoint c = options(store, Limits.STRICT).openCheckpoint(Location.parse(INDEX))) {
            long afterOpen = store.requests();
            assertEquals(1 + 2, afterOpen, "the index and one header read per shard");
            ByteBuffer b = ByteBuffer.allocate(10);
            assertEquals(10, c.readBytes("b", b));
            assertEquals(15, c.readFloat32("c").length + c.readFloat32("a").length + c.slice("b").readFloat32().length);
            assertEquals(3, store.opens(), "no shard was opened a second time");
            assertEquals(1, store.firstReads("mem://b/m/" + SHARD1 + "?rev=c0ffee"), "one header read");
            assertEquals(1, store.firstReads("mem://b/m/" + SHARD2 + "?rev=c0ffee"), "one header read");
            assertEquals(store.requests(), c.statistics().requests(), "every request counted once");
        }
    }

    @Test
    void totalsArePerDtype() throws Exception {
        try (Checkpoint c = options(store(shard1(), shard2()), Limits.STRICT).openCheckpoint(Location.parse(INDEX))) {
            TensorTotals t = c.totals();
            assertEquals(3, t.tensors());
            assertEquals(6 + 4 + 5, t.parameters());
            assertEquals(new TensorTotals.PerDtype(1, 6, 24), t.byDtype().get(DType.F32));
            assertEquals(new TensorTotals.PerDtype(1, 4, 8), t.byDtype().get(DType.F16));
            assertEquals(new TensorTotals.PerDtype(1, 5, 10), t.byDtype().get(DType.BF16));
        }
    }

    @Test
    void checkJudgesEveryShardInsteadOfStoppingAtTheFirstBadOne() throws Exception {
        byte[] garbage = "not a safetensors file at all".getBytes(StandardCharsets.US_ASCII);
        MemoryStore store = store(garbage, garbage);
        List<CheckVerdict> all = CheckServiceTest.all(options(store, Limits.STRICT), INDEX);
        assertEquals(3, all.size(), "two shards, then the checkpoint");
        assertTrue(all.subList(0, 2).stream().noneMatch(CheckVerdict::valid), "both bad shards are reported");
        CheckpointVerdict v = (CheckpointVerdict) all.get(2);
        assertFalse(v.valid());
        assertEquals(2, v.failedShards());
        assertTrue(v.disagreement().isEmpty(), "the index is judged only against shards that passed");
        assertEquals(Optional.empty(), v.totals());
        InvalidHeaderException open = assertThrows(InvalidHeaderException.class,
                () -> options(store, Limits.STRICT).openCheckpoint(Location.parse(INDEX)));
        assertEquals(ErrorCode.HEADER_TOO_LARGE, open.code(), open.getMessage());

        List<CheckVerdict> good = CheckServiceTest.all(options(store(shard1(), shard2()), Limits.STRICT), INDEX);
        CheckpointVerdict whole = (CheckpointVerdict) good.get(2);
        assertTrue(whole.valid());
        assertEquals(3, whole.totals().orElseThrow().tensors());
    }

    @Test
    void theCallersLimitsBoundTheHeaders() throws Exception {
        byte[] wide = SafetensorsFixture.create().tensor("b", "F8_E4M3", 5).build();
        MemoryStore store = store(shard1(), wide);
        UnsupportedDtypeException strict = assertThrows(UnsupportedDtypeException.class,
                () -> options(store, Limits.STRICT).openCheckpoint(Location.parse(INDEX)));
        assertEquals(ErrorCode.UNSUPPORTED_DTYPE, strict.code(), strict.getMessage());
        try (Checkpoint c = options(store, Limits.OFFICIAL).openCheckpoint(Location.parse(INDEX))) {
            assertEquals(DType.F8_E4M3, c.tensor("b").dtype());
        }
    }

    @Test
    void anIndexNamingMoreShardsThanTheCapIsRefusedBeforeAnyShardRequest() {
        MemoryStore store = store(shard1(), shard2());
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> options(store, Limits.STRICT, CheckpointLimits.DEFAULT.withMaxShardsPerIndex(1))
                        .openCheckpoint(Location.parse(INDEX)));
        assertEquals(ErrorCode.INVALID_INDEX, e.code());
        assertEquals(1, store.opens(), "the index alone was opened");
    }

    @Test
    void aListingWithMoreCheckpointsThanTheCapIsAnInvalidSource() {
        RepositoryCheckpoint one = new RepositoryCheckpoint("", Location.parse("mem://r/model.safetensors"), false,
                Optional.empty());
        RepositoryCheckpoint two = new RepositoryCheckpoint("vae", Location.parse("mem://r/vae/model.safetensors"),
                false, Optional.empty());
        MemoryStore store = new MemoryStore().repository("mem://r/", List.of(one, two))
                .put("mem://r/model.safetensors", shard2()).put("mem://r/vae/model.safetensors", shard2());
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> options(store, Limits.STRICT, CheckpointLimits.DEFAULT.withMaxCheckpointsPerListing(1))
                        .locateAll(Location.parse("mem://r/")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertEquals(0, store.opens(), "no checkpoint was opened");
    }

    @Test
    void anIndexThatIsNotUtf8IsAnInvalidIndexNotAnError() {
        // found by the bounded fuzz run: jackson's encoding detection read these 17 bytes as UTF-32
        byte[] index = new byte[17];
        index[0] = '{';
        index[5] = 4;
        byte[] tail = "map\":[]}".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(tail, 0, index, 9, tail.length);
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> ShardIndex.parse("model.safetensors.index.json", index));
        assertEquals(ErrorCode.INVALID_INDEX, e.code());
        for (byte[] bom : List.of(new byte[] {(byte) 0xFF, (byte) 0xFE, 0, 0}, new byte[] {0, 0, (byte) 0xFE,
                (byte) 0xFF}, new byte[] {(byte) 0xFE, (byte) 0xFF})) {
            byte[] utf = new byte[bom.length + 4];
            System.arraycopy(bom, 0, utf, 0, bom.length);
            assertEquals(ErrorCode.INVALID_INDEX, assertThrows(InvalidHeaderException.class,
                    () -> ShardIndex.parse("i", utf)).code());
        }
    }

    @Test
    void aConfigThatIsNotUtf8IsInvalidJsonNotAnError() {
        byte[] config = {'{', 0, 0, 0, 0, 4, 0, 0, 0, 'm', 'a', 'p', '"', ':', '[', ']', '}'};
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> QuantizationConfig.parse("config.json", config, CheckpointLimits.DEFAULT_MAX_CONFIG_BYTES));
        assertEquals(ErrorCode.INVALID_JSON, e.code());
        byte[] latin1 = "{\"q\":\"\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(ErrorCode.INVALID_JSON, assertThrows(InvalidHeaderException.class,
                () -> QuantizationConfig.parse("config.json", latin1, CheckpointLimits.DEFAULT_MAX_CONFIG_BYTES)).code());
    }

    @Test
    void theDefaultsAreTheInstalledProvidersAndTheStrictPolicy() {
        SafetensorsClient d = SafetensorsClient.defaultClient();
        assertEquals(Limits.STRICT, d.limits());
        assertEquals(ReadOptions.DEFAULT, d.readOptions());
        assertEquals(Sources.defaultRegistry(), d.registry());
        SafetensorsClient official = d.newBuilder().limits(Limits.OFFICIAL).build();
        assertEquals(Limits.OFFICIAL, official.limits());
        assertEquals(Sources.defaultRegistry(), official.registry());
        assertEquals(CheckpointLimits.DEFAULT, d.checkpointLimits());
        assertArrayEquals(new int[] {CheckpointLimits.DEFAULT_MAX_INDEX_BYTES, CheckpointLimits.DEFAULT_MAX_SHARDS_PER_INDEX},
                new int[] {d.checkpointLimits().maxIndexBytes(), d.checkpointLimits().maxShardsPerIndex()});
        assertEquals(d.checkpointLimits(), official.checkpointLimits(), "a variant keeps what it did not change");
    }
}
