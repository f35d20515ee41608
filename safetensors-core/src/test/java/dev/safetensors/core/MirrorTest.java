package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.Sha256;
import dev.safetensors.SourceChangedException;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.spi.UploadOptions;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's mirror service, from one in-memory store's prefix into another's: the files a download selects,
 * byte for byte, the index committed last, each published digest checked before its object commits, and an
 * occupied prefix refused unless forced.
 */
class MirrorTest {
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";
    private static final String INDEX = "model.safetensors.index.json";
    private static final String SOURCE = "mem://src/ckpt/";
    private static final String MIRROR = "mem://dst/mirror/";

    private final Map<String, byte[]> files = new TreeMap<>();

    private MemoryStore store() {
        files.put(SHARD1, SafetensorsFixture.create().tensor("a", "F32", 6).build());
        files.put(SHARD2, SafetensorsFixture.create().tensor("b", "F32", 5).build());
        files.put(INDEX, ("{\"metadata\":{\"total_size\":44},\"weight_map\":{\"a\":\"" + SHARD1
                + "\",\"b\":\"" + SHARD2 + "\"}}").getBytes(StandardCharsets.UTF_8));
        files.put("config.json", "{\"model_type\":\"t\"}".getBytes(StandardCharsets.UTF_8));
        files.put("ema/model.safetensors", SafetensorsFixture.create().tensor("e", "F32", 3).build());
        MemoryStore store = new MemoryStore();
        files.forEach((k, v) -> store.put(SOURCE + k, v));
        return store;
    }

    private static MirrorResult mirror(MemoryStore store, boolean force) throws Exception {
        try (SourceRegistry registry = SourceRegistry.builder().provider(store).writer(store).build()) {
            return SafetensorsClient.builder().registry(registry).build().mirror(Location.parse(SOURCE),
                    Location.parse(MIRROR), DownloadRequest.builder().force(force).build(), UploadOptions.DEFAULT);
        }
    }

    @Test
    void everyFileIsMirroredByteForByteWithTheIndexLast() throws Exception {
        MemoryStore store = store();
        MirrorResult result = mirror(store, false);
        assertEquals(new TreeSet<>(files.keySet()), store.names(MIRROR));
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            assertArrayEquals(f.getValue(), store.bytes(MIRROR + f.getKey()), f.getKey());
        }
        List<String> puts = store.mutations();
        assertEquals("put " + MIRROR + INDEX, puts.get(puts.size() - 1), "the index is committed last");
        assertEquals(files.size(), result.objects().size());
        for (MirroredObject o : result.objects()) {
            String name = o.object().text().substring(MIRROR.length());
            assertEquals(HexFormat.of().formatHex(Sha256.newDigest().digest(files.get(name))), o.sha256(), name);
            assertFalse(o.verified(), "this store publishes no digest");
        }
    }

    @Test
    void aPublishedDigestIsVerifiedAndAMismatchCommitsNothingAfterIt() throws Exception {
        MemoryStore store = store();
        store.publish(SOURCE + SHARD1, HexFormat.of().formatHex(Sha256.newDigest().digest(files.get(SHARD1))));
        MirrorResult ok = mirror(store, false);
        assertTrue(ok.objects().stream().anyMatch(o -> o.verified() && o.source().text().endsWith(SHARD1)));

        MemoryStore lying = store();
        lying.publish(SOURCE + SHARD2, "0".repeat(64));
        SourceChangedException e = assertThrows(SourceChangedException.class, () -> mirror(lying, false));
        assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        assertFalse(lying.names(MIRROR).contains(SHARD2), "the object with other bytes never appeared");
        assertFalse(lying.names(MIRROR).contains(INDEX), "no index after a failure");
    }

    @Test
    void anOccupiedPrefixIsRefusedUnlessForcedAndItsOtherObjectsStay() throws Exception {
        MemoryStore store = store();
        mirror(store, false);
        store.put(MIRROR + "notes.txt", new byte[] {1});
        List<String> before = store.mutations();
        StorageException e = assertThrows(StorageException.class, () -> mirror(store, false));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
        assertEquals(before, store.mutations(), "nothing changed");
        mirror(store, true);
        assertTrue(store.names(MIRROR).contains("notes.txt"), "a mirror deletes nothing of the prefix's own");
        List<String> after = store.mutations().subList(before.size(), store.mutations().size());
        assertEquals("delete " + MIRROR + INDEX, after.get(0), "the old index goes before a file it names is replaced");
        assertEquals("put " + MIRROR + INDEX, after.get(after.size() - 1));
    }
}
