package dev.safetensors.http;

import dev.safetensors.SourceIdentity;
import dev.safetensors.spi.AbstractPositionalSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A Hub file read from the Hugging Face cache ({@link HubCache}) instead of the Hub: positional reads of the blob
 * the snapshot links to, no request. Named by its {@code hf://} location so messages read the same as for a remote
 * read; {@link #identity()} reports the repository, the commit and, for an LFS file, its SHA-256 (the blob's name).
 * Thread-safe (positional reads carry no cursor); each read counts as one request of the cache.
 */
final class CachedHubFile extends AbstractPositionalSource {
    private final FileChannel channel;
    private final SourceIdentity identity;

    private CachedHubFile(String name, FileChannel channel, SourceIdentity identity) throws IOException {
        super(name, channel.size());
        this.channel = channel;
        this.identity = identity;
    }

    /**
     * @param name     the {@code hf://} location, for messages
     * @param blob     the blob's real path, as {@link HubCache} checked it: opened without following a link
     * @param at       the file, pinned to its commit
     * @return the source
     * @throws IOException if the file cannot be opened
     */
    static CachedHubFile open(String name, Path blob, HubPath at) throws IOException {
        // an LFS file's blob is named by its SHA-256, a Git file's by its SHA-1: the identity keeps the first only
        SourceIdentity identity = new SourceIdentity(null, null, at.repository(), at.revision(),
                blob.getFileName().toString());
        return new CachedHubFile(name, FileChannel.open(blob, StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS), identity);
    }

    @Override
    protected int readAt(long position, ByteBuffer dst) throws IOException {
        return channel.read(dst, position);
    }

    @Override
    public SourceIdentity identity() {
        return identity;
    }

    @Override
    protected void release() throws IOException {
        channel.close();
    }
}
