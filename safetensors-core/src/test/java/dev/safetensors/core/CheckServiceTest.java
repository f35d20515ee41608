package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryCheckpoint;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceStatistics;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SafetensorsClient#check}: the results in order (each checkpoint's files, then the checkpoint), at most
 * {@link SafetensorsClient#concurrency()} sources open at once, every checkpoint rule judged, nothing left open.
 */
class CheckServiceTest {
    private static final int SHARDS = 12;

    /** @return every verdict of checking one location */
    static List<CheckVerdict> all(SafetensorsClient client, String location) throws IOException {
        List<CheckVerdict> all = new ArrayList<>();
        try (CheckResults<CheckVerdict> results = client.check(List.of(Location.parse(location)))) {
            while (results.hasNext()) {
                all.add(results.next());
            }
        }
        return all;
    }

    private static String shard(int i) {
        return String.format("model-%05d-of-%05d.safetensors", i, SHARDS);
    }

    /** A checkpoint of {@link #SHARDS} shards under {@code at}, shard i holding tensor {@code t<i>}. */
    private static MemoryStore sharded(MemoryStore store, String at, int badShard, int strayShard) {
        StringBuilder map = new StringBuilder();
        for (int i = 1; i <= SHARDS; i++) {
            map.append(i == 1 ? "" : ",").append("\"t").append(i).append("\":\"").append(shard(i)).append('"');
            SafetensorsFixture f = SafetensorsFixture.create().tensor("t" + i, "F32", 2);
            byte[] bytes = i == badShard ? "not safetensors".getBytes(StandardCharsets.US_ASCII)
                    : (i == strayShard ? f.tensor("stray", "F32", 1) : f).build();
            store.put(at + shard(i) + "?rev=c0ffee", bytes);
        }
        return store.put(at + "model.safetensors.index.json",
                ("{\"weight_map\":{" + map + "}}").getBytes(StandardCharsets.UTF_8));
    }

    private static SafetensorsClient client(RandomAccessSourceProvider provider, int concurrency) {
        return SafetensorsClient.builder().registry(SourceRegistry.builder().provider(provider).build())
                .limits(Limits.STRICT).concurrency(concurrency).build();
    }

    @Test
    void verdictsComeInOrderWithNoMoreSourcesOpenThanTheConcurrency() throws Exception {
        Recording store = new Recording(sharded(new MemoryStore(), "mem://b/m/", -1, -1), 3);
        SafetensorsClient client = client(store, 3);
        List<CheckVerdict> all = new ArrayList<>();
        try (CheckResults<CheckVerdict> results = client.check(List.of(
                Location.parse("mem://b/m/model.safetensors.index.json"),
                Location.parse("mem://b/m/" + shard(5) + "?rev=c0ffee")))) {
            while (results.hasNext()) {
                all.add(results.next());
            }
        }
        assertEquals(SHARDS + 1 + 2, all.size(), "twelve shards and their checkpoint, then a file and its own");
        for (int i = 0; i < SHARDS; i++) {
            ShardVerdict v = assertInstanceOf(ShardVerdict.class, all.get(i));
            assertEquals(Location.parse("mem://b/m/" + shard(i + 1) + "?rev=c0ffee"), v.location(), "shard order");
            assertTrue(v.valid());
        }
        CheckpointVerdict whole = assertInstanceOf(CheckpointVerdict.class, all.get(SHARDS), "after its shards");
        assertTrue(whole.valid(), whole.failure().toString());
        assertEquals(SHARDS, whole.shards());
        assertEquals(SHARDS, whole.totals().orElseThrow().tensors());
        assertEquals(1 + SHARDS, whole.cost().requests(), "the index and one read per header");
        assertInstanceOf(ShardVerdict.class, all.get(SHARDS + 1));
        assertInstanceOf(CheckpointVerdict.class, all.get(SHARDS + 2));
        assertTrue(store.maxOpen.get() <= 3, "at most three sources at once: " + store.maxOpen.get());
        assertEquals(3, store.maxOpen.get(), "three shards were read at once (the reads meet at a barrier)");
        assertEquals(0, store.open.get(), "no source left open");
    }

    @Test
    void aSlowFirstFileDoesNotHoldUpTheReadsBehindIt() throws Exception {
        // the first shard's read waits until every other shard was read: with the workers' room taken by results
        // waiting behind it, only two more would ever be read and the wait would run out
        Recording store = new Recording(sharded(new MemoryStore(), "mem://b/m/", -1, -1), 0);
        store.othersFirst = new java.util.concurrent.CountDownLatch(SHARDS - 1);
        List<CheckVerdict> all = all(client(store, 3), "mem://b/m/model.safetensors.index.json");
        assertTrue(store.othersWereFirst, "the eleven shards behind the first were read while it was held");
        assertEquals(SHARDS + 1, all.size());
        for (int i = 0; i < SHARDS; i++) {
            assertEquals(Location.parse("mem://b/m/" + shard(i + 1) + "?rev=c0ffee"),
                    ((ShardVerdict) all.get(i)).location(), "still in shard order");
        }
        assertTrue(all.get(SHARDS).valid());
        assertTrue(store.maxOpen.get() <= 3, "never more sources open than the concurrency: " + store.maxOpen.get());
    }

    @Test
    void aRepositoryWhoseShardHeaderIsBadFailsWithThatShardAndTheCheckpoint() throws Exception {
        MemoryStore store = sharded(new MemoryStore(), "mem://r/", 4, -1).repository("mem://r/",
                List.of(new RepositoryCheckpoint("", Location.parse("mem://r/model.safetensors.index.json"), true,
                        Optional.empty())));
        List<CheckVerdict> all = all(client(store, 4), "mem://r/");
        assertEquals(SHARDS + 1, all.size());
        ShardVerdict bad = (ShardVerdict) all.get(3);
        assertFalse(bad.valid(), "the fourth shard's header is read and judged, not taken on trust");
        assertEquals(ErrorCode.HEADER_TOO_LARGE, ErrorCode.of(bad.failure().orElseThrow()));
        assertEquals(SHARDS - 1, all.stream().filter(v -> v instanceof ShardVerdict && v.valid()).count());
        CheckpointVerdict whole = (CheckpointVerdict) all.get(SHARDS);
        assertFalse(whole.valid());
        assertEquals(1, whole.failedShards());
        assertEquals(ErrorCode.HEADER_TOO_LARGE, ErrorCode.of(whole.failure().orElseThrow()));
        assertEquals("c0ffee", whole.files().orElseThrow().identity().revision());
    }

    @Test
    void anIndexThatDisagreesWithItsShardsFailsTheCheckpointAlone() throws Exception {
        MemoryStore store = sharded(new MemoryStore(), "mem://b/m/", -1, 7);
        List<CheckVerdict> all = all(client(store, 2), "mem://b/m/model.safetensors.index.json");
        assertTrue(all.subList(0, SHARDS).stream().allMatch(CheckVerdict::valid), "every shard on its own is fine");
        CheckpointVerdict whole = (CheckpointVerdict) all.get(SHARDS);
        assertEquals(ErrorCode.INVALID_INDEX, whole.disagreement().orElseThrow().code());
        assertTrue(whole.failure().orElseThrow().getMessage().contains("\"stray\" of shard " + shard(7)),
                whole.failure().toString());
    }

    @Test
    void aLocationThatCannotBeLocatedIsOneFailedCheckpointVerdict() throws Exception {
        List<CheckVerdict> all = all(client(new MemoryStore(), 2), "mem://b/missing.safetensors.index.json");
        assertEquals(1, all.size());
        CheckpointVerdict v = (CheckpointVerdict) all.get(0);
        assertTrue(v.files().isEmpty());
        assertEquals(ErrorCode.NOT_FOUND, ErrorCode.of(v.failure().orElseThrow()));
    }

    @Test
    void closingBeforeTheEndLeavesNoSourceOpen() throws Exception {
        Recording store = new Recording(sharded(new MemoryStore(), "mem://b/m/", -1, -1), 0);
        try (CheckResults<CheckVerdict> results = client(store, 4).check(List.of(
                Location.parse("mem://b/m/model.safetensors.index.json")))) {
            assertTrue(results.next().valid());
        }
        assertEquals(0, store.open.get(), "the reads in flight were stopped and their sources closed");
    }

    /** Wraps a store, counting the sources open at once; the first {@code meet} header reads wait for each other. */
    private static final class Recording implements RandomAccessSourceProvider {
        final MemoryStore store;
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger maxOpen = new AtomicInteger();
        final CyclicBarrier barrier;
        final AtomicInteger opened = new AtomicInteger();
        final int meet;
        /** When set, the first shard's read waits for this many other reads, the others counting it down. */
        java.util.concurrent.CountDownLatch othersFirst;
        volatile boolean othersWereFirst;

        Recording(MemoryStore store, int meet) {
            this.store = store;
            this.meet = meet;
            this.barrier = meet > 1 ? new CyclicBarrier(meet) : null;
        }

        @Override
        public boolean supports(Location location) {
            return store.supports(location);
        }

        @Override
        public Optional<RepositoryListing> listCheckpoints(Location location) throws IOException {
            return store.listCheckpoints(location);
        }

        @Override
        public Listing list(Location prefix, ListOptions options) {
            return store.list(prefix, options);
        }

        @Override
        public Location sibling(Location file, String name, SourceIdentity identity) {
            return store.sibling(file, name, identity);
        }

        @Override
        public RandomAccessSource open(Location location) throws IOException {
            RandomAccessSource s = store.open(location);
            int now = open.incrementAndGet();
            maxOpen.accumulateAndGet(now, Math::max);
            boolean shard = !location.isIndex();
            if (othersFirst != null && shard) {
                if (location.text().contains(shard(1))) {
                    try {
                        // bounded: a window that stops behind a slow head never lets the others come
                        othersWereFirst = othersFirst.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                } else {
                    othersFirst.countDown();
                }
            }
            if (barrier != null && shard && opened.incrementAndGet() <= meet) {
                try {
                    // bounded: a serial reader would never let the others arrive, and fails the count instead
                    barrier.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // the assertion on maxOpen reports it
                }
            }
            return new RandomAccessSource() {
                @Override
                public long size() throws IOException {
                    return s.size();
                }

                @Override
                public int read(long position, ByteBuffer dst) throws IOException {
                    return s.read(position, dst);
                }

                @Override
                public String name() {
                    return s.name();
                }

                @Override
                public SourceStatistics statistics() {
                    return s.statistics();
                }

                @Override
                public SourceIdentity identity() {
                    return s.identity();
                }

                @Override
                public void close() throws IOException {
                    open.decrementAndGet();
                    s.close();
                }
            };
        }
    }
}
