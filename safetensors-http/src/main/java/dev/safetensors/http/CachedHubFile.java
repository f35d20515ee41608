package dev.safetensors.http;

import dev.safetensors.spi.AbstractPositionalSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Hub file read from the Hugging Face cache ({@link HubCache}) instead of the Hub: positional reads of the blob
 * the snapshot links to, no request. Named by its {@code hf://} location so messages read the same as for a remote
 * read; {@link #attributes()} report the repository, the commit and, for an LFS file, its SHA-256 (the blob's name).
 * Thread-safe (positional reads carry no cursor); each read counts as one request of the cache.
 */
final class CachedHubFile extends AbstractPositionalSource {
    private final FileChannel channel;
    private final Map<String, String> attributes;

    private CachedHubFile(String name, FileChannel channel, Map<String, String> attributes) throws IOException {
        super(name, channel.size());
        this.channel = channel;
        this.attributes = attributes;
    }

    /**
     * @param name     the {@code hf://} location, for messages
     * @param blob     the blob's real path, as {@link HubCache} checked it: opened without following a link
     * @param at       the file, pinned to its commit
     * @return the source
     * @throws IOException if the file cannot be opened
     */
    static CachedHubFile open(String name, Path blob, HubPath at) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("repository", at.repository());
        m.put("revision", at.revision());
        String blobName = blob.getFileName().toString();
        if (blobName.length() == 64 && blobName.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            m.put("linked_etag", blobName);
        }
        return new CachedHubFile(name, FileChannel.open(blob, StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS), Map.copyOf(m));
    }

    @Override
    protected int readAt(long position, ByteBuffer dst) throws IOException {
        return channel.read(dst, position);
    }

    @Override
    public Map<String, String> attributes() {
        return attributes;
    }

    @Override
    protected void release() throws IOException {
        channel.close();
    }
}
