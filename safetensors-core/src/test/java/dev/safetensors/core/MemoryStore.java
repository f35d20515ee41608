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
 * every object under it when the listing is recursive (one counted request). It also writes, as an object store
 * does: an upload becomes visible whole at its commit, conditionally unless overwriting; uploads are counted and
 * their order kept. Thread-safe.
 */
final class MemoryStore implements RandomAccessSourceProvider, dev.safetensors.spi.ObjectWriterProvider {
    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> firstReads = new ConcurrentHashMap<>();
    private final AtomicInteger opens = new AtomicInteger();
    private final RequestCounter requests = new RequestCounter();
    private final Map<String, List<RepositoryCheckpoint>> repositories = new ConcurrentHashMap<>();

    /** The committed uploads and deletes, in order: "put URI" or "delete URI". */
    private final List<String> mutations = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The SHA-256 the store publishes of an object (as the Hub's linked ETag), by URI. */
    private final Map<String, String> published = new ConcurrentHashMap<>();

    MemoryStore publish(String uri, String sha256) {
        published.put(uri, sha256);
        return this;
    }

    MemoryStore put(String uri, byte[] bytes) {
        objects.put(uri, bytes);
        return this;
    }

    MemoryStore repository(String uri, List<RepositoryCheckpoint> checkpoints) {
        repositories.put(uri, checkpoints);
        return this;
    }

    byte[] bytes(String uri) {
        return objects.get(uri);
    }

    /** @return the names of the objects below a prefix, sorted */
    java.util.SortedSet<String> names(String prefix) {
        java.util.SortedSet<String> names = new java.util.TreeSet<>();
        objects.keySet().stream().filter(k -> k.startsWith(prefix)).forEach(k -> names.add(k.substring(prefix.length())));
        return names;
    }

    List<String> mutations() {
        return List.copyOf(mutations);
    }

    @Override
    public dev.safetensors.spi.ObjectUpload create(Location object, dev.safetensors.spi.UploadOptions options)
            throws IOException {
        String key = object.text();
        if (!options.overwrite() && objects.containsKey(key)) {
            throw new dev.safetensors.StorageException(dev.safetensors.ErrorCode.ALREADY_EXISTS, key, "exists");
        }
        java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        return new dev.safetensors.spi.ObjectUpload() {
            private boolean open = true;

            @Override
            public int write(ByteBuffer src) throws IOException {
                if (!open) {
                    throw new java.nio.channels.ClosedChannelException();
                }
                int n = src.remaining();
                byte[] b = new byte[n];
                src.get(b);
                buffer.write(b);
                return n;
            }

            @Override
            public long written() {
                return buffer.size();
            }

            @Override
            public dev.safetensors.spi.WrittenObject commit() throws IOException {
                open = false;
                byte[] bytes = buffer.toByteArray();
                if (!options.overwrite() && objects.putIfAbsent(key, bytes) != null) {
                    throw new dev.safetensors.StorageException(dev.safetensors.ErrorCode.ALREADY_EXISTS, key,
                            "appeared");
                }
                objects.put(key, bytes);
                mutations.add("put " + key);
                return new dev.safetensors.spi.WrittenObject(object, bytes.length, Optional.empty());
            }

            @Override
            public void abort() {
                open = false;
            }

            @Override
            public boolean isOpen() {
                return open;
            }

            @Override
            public void close() {
                open = false;
            }
        };
    }

    @Override
    public void delete(Location object) {
        if (objects.remove(object.text()) != null) {
            mutations.add("delete " + object.text());
        }
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
                return new SourceIdentity("\"e\"", null, authority, "c0ffee", published.get(key));
            }

            @Override
            public void close() {
            }
        };
    }
}
