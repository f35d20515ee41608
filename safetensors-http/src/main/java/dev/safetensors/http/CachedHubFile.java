package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RequestCounter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Hub file read from the Hugging Face cache ({@link HubCache}) instead of the Hub: positional reads of the blob
 * the snapshot links to, no request. Named by its {@code hf://} location so messages read the same as for a remote
 * read; {@link #attributes()} report the repository, the commit and, for an LFS file, its SHA-256 (the blob's name).
 * Thread-safe (positional reads carry no cursor).
 */
final class CachedHubFile implements RandomAccessSource {
    private final String name;
    private final FileChannel channel;
    private final long size;
    private final Map<String, String> attributes;
    private final RequestCounter counter = new RequestCounter();

    private CachedHubFile(String name, FileChannel channel, Map<String, String> attributes) throws IOException {
        this.name = name;
        this.channel = channel;
        this.size = channel.size();
        this.attributes = attributes;
    }

    /**
     * @param name     the {@code hf://} location, for messages
     * @param file     the snapshot path (a link to the blob)
     * @param at       the file, pinned to its commit
     * @return the source
     * @throws IOException if the file cannot be opened
     */
    static CachedHubFile open(String name, Path file, HubPath at) throws IOException {
        Path blob = file.toRealPath();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("repository", at.repository());
        m.put("revision", at.revision());
        String blobName = blob.getFileName().toString();
        if (blobName.length() == 64 && blobName.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            m.put("linked_etag", blobName);
        }
        return new CachedHubFile(name, FileChannel.open(blob, StandardOpenOption.READ), Map.copyOf(m));
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position: " + position);
        }
        if (!channel.isOpen()) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "the source is closed");
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        int total = 0;
        while (dst.hasRemaining() && position + total < size) {
            int n = channel.read(dst, position + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        counter.bytes(total);
        return total;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Map<String, String> attributes() {
        return attributes;
    }

    @Override
    public SourceStatistics statistics() {
        return counter.snapshot();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
