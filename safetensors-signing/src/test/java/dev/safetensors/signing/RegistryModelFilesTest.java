package dev.safetensors.signing;

import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.SourceRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A model under a store prefix, through a SourceRegistry, with an in-memory store standing for S3 or GCS. */
class RegistryModelFilesTest {
    @TempDir
    Path dir;

    /** Objects in a map, listed flat and recursively, read by position; counts the bytes served. */
    private static final class MemoryStore implements RandomAccessSourceProvider {
        final Map<String, byte[]> objects = new ConcurrentHashMap<>();
        final AtomicLong served = new AtomicLong();

        @Override
        public boolean supports(Location location) {
            return location.scheme().equals("mem");
        }

        @Override
        public RandomAccessSource open(Location location) throws IOException {
            byte[] bytes = objects.get(location.text());
            if (bytes == null) {
                throw new SourceNotFoundException(location.text(), "no such object");
            }
            return new RandomAccessSource() {
                @Override
                public long size() {
                    return bytes.length;
                }

                @Override
                public int read(long position, ByteBuffer dst) {
                    if (position >= bytes.length) {
                        return -1;
                    }
                    int n = (int) Math.min(dst.remaining(), bytes.length - position);
                    dst.put(bytes, (int) position, n);
                    served.addAndGet(n);
                    return n;
                }

                @Override
                public String name() {
                    return location.text();
                }

                @Override
                public SourceStatistics statistics() {
                    return SourceStatistics.NONE;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Listing list(Location prefix, ListOptions options) {
            String base = prefix.text().endsWith("/") ? prefix.text() : prefix.text() + "/";
            Iterator<Map.Entry<String, byte[]>> entries = new TreeMap<>(objects).entrySet().stream()
                    .filter(e -> e.getKey().startsWith(base)).iterator();
            return new Listing() {
                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public ListEntry next() {
                    Map.Entry<String, byte[]> e = entries.next();
                    return ListEntry.file(Location.parse(e.getKey()), e.getValue().length, null, null);
                }

                @Override
                public SourceStatistics cost() {
                    return SourceStatistics.NONE;
                }

                @Override
                public void close() {
                }
            };
        }
    }

    @Test
    void aModelInAStoreSignsAndVerifiesLikeItsLocalCopy() throws Exception {
        Path local = TestSupport.model(dir);
        MemoryStore store = new MemoryStore();
        try (var files = Files.walk(local)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String relative = local.relativize(file).toString().replace('\\', '/');
                store.objects.put("mem://bucket/models/my-model/" + relative, Files.readAllBytes(file));
            }
        }
        store.objects.put("mem://bucket/models/other/unrelated.bin", new byte[10]);
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        try (SourceRegistry registry = SourceRegistry.builder().provider(store).build()) {
            ModelFiles remote = ModelFiles.of(registry, Location.parse("mem://bucket/models/my-model"));
            assertEquals("my-model", remote.name());
            ModelSignature signed = ModelSigner.withKey(keys).sign(remote, Serialization.shards(1000));
            // every byte read once: the files minus the ignored .git folder
            long modelBytes = store.objects.entrySet().stream()
                    .filter(e -> e.getKey().startsWith("mem://bucket/models/my-model/")
                            && !e.getKey().contains("/.git/"))
                    .mapToLong(e -> e.getValue().length).sum();
            assertEquals(modelBytes, store.served.get());

            ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
            assertTrue(verifier.verify(ModelFiles.of(local), signed.bundle(), List.of()).matches());

            store.objects.put("mem://bucket/models/my-model/config.json",
                    "{\"layers\": 3}".getBytes(StandardCharsets.UTF_8));
            store.objects.remove("mem://bucket/models/my-model/a.b");
            VerificationResult result = verifier.verify(remote, signed.bundle(), List.of());
            assertEquals(List.of("a.b"), result.missing());
            assertEquals(List.of("config.json"), result.mismatched());
        }
    }
}
