package dev.safetensors.core;

import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryCheckpoint;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.RequestCounter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A remote store in memory for {@code mem://} URIs: every read is one counted request, reads at offset 0 (header and
 * index reads) are counted per object, every open is counted, and a {@code mem://NAME/} location with listed
 * checkpoints is a repository, and a {@code mem://NAME/PREFIX/} location lists the objects directly under it, or
 * every object under it when the listing is recursive (one counted request). Thread-safe.
 */
final class MemoryStore implements RandomAccessSourceProvider {
    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> firstReads = new ConcurrentHashMap<>();
    private final AtomicInteger opens = new AtomicInteger();
    private final RequestCounter requests = new RequestCounter();
    private final Map<String, List<RepositoryCheckpoint>> repositories = new ConcurrentHashMap<>();

    MemoryStore put(String uri, byte[] bytes) {
        objects.put(uri, bytes);
        return this;
    }

    MemoryStore repository(String uri, List<RepositoryCheckpoint> checkpoints) {
        repositories.put(uri, checkpoints);
        return this;
    }

    int opens() {
        return opens.get();
    }

    int firstReads(String uri) {
        return firstReads.computeIfAbsent(uri, k -> new AtomicInteger()).get();
    }

    long requests() {
        return requests.snapshot().requests();
    }

    @Override
    public boolean supports(Location location) {
        return "mem".equals(location.scheme());
    }

    @Override
    public Optional<RepositoryListing> listCheckpoints(Location location) throws IOException {
        List<RepositoryCheckpoint> listed = repositories.get(location.text());
        return listed == null ? Optional.empty()
                : Optional.of(new RepositoryListing(location.requireUri().getAuthority(), "c0ffee", listed, SourceStatistics.NONE));
    }

    @Override
    public Listing list(Location prefix, ListOptions options) {
        String at = prefix.text().endsWith("/") ? prefix.text() : prefix.text() + "/";
        requests.request();
        List<ListEntry> entries = objects.entrySet().stream()
                .filter(e -> e.getKey().startsWith(at)
                        && (options.recursive() || e.getKey().indexOf('/', at.length()) < 0))
                .map(e -> ListEntry.file(Location.parse(e.getKey()), e.getValue().length, null, null))
                .sorted(java.util.Comparator.comparing(e -> e.location().text())).toList();
        return dev.safetensors.fixtures.FixedListing.of(entries, new SourceStatistics(1, 0, 1));
    }

    @Override
    public Location sibling(Location file, String name, SourceIdentity identity) {
        // pinned as a backend with revisions would: the store's only revision, in the query
        return Location.parse(file.sibling(name).text() + "?rev=" + identity.revision());
    }

    @Override
    public RandomAccessSource open(Location location) throws IOException {
        String key = location.text();
        String authority = location.requireUri().getAuthority();
        // a location pinned to the store's only revision names the object as it is
        byte[] bytes = objects.containsKey(key) || !key.endsWith("?rev=c0ffee") ? objects.get(key)
                : objects.get(key.substring(0, key.length() - "?rev=c0ffee".length()));
        if (bytes == null) {
            throw new SourceNotFoundException(key, "no such object");
        }
        opens.incrementAndGet();
        return new RandomAccessSource() {
            private final RequestCounter own = new RequestCounter();

            @Override
            public long size() {
                return bytes.length;
            }

            @Override
            public int read(long position, ByteBuffer dst) {
                if (position >= bytes.length) {
                    return -1;
                }
                if (position == 0) {
                    firstReads.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                }
                int n = (int) Math.min(dst.remaining(), bytes.length - position);
                dst.put(bytes, (int) position, n);
                own.request();
                own.bytes(n);
                requests.request();
                return n;
            }

            @Override
            public String name() {
                return key;
            }

            @Override
            public SourceStatistics statistics() {
                return own.snapshot();
            }

            @Override
            public SourceIdentity identity() {
                return new SourceIdentity("\"e\"", null, authority, "c0ffee", null);
            }

            @Override
            public void close() {
            }
        };
    }
}
