package dev.safetensors.core.internal.header;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;

/**
 * Stands in for a source while its header is read and keeps a copy of the bytes read contiguously from offset 0, up to
 * a cap: the header check's first read ({@code Limits.prefetchBytes}) often holds small tensors too, and
 * {@code SafetensorsFile} serves those from the copy instead of asking the source again. Used by one thread, during
 * {@code SafetensorsFile.open}.
 */
public final class PrefixCapture implements RandomAccessSource {
    private final RandomAccessSource source;
    private final int cap;
    private byte[] bytes = new byte[0];
    private int length;

    public PrefixCapture(RandomAccessSource source, int cap) {
        this.source = source;
        this.cap = cap;
    }

    /**
     * @param from the first byte wanted, a file offset (the payload's start)
     * @return the captured bytes from {@code from} on, in a new buffer of their own; empty if none were captured
     */
    public ByteBuffer bytesFrom(long from) {
        if (from >= length) {
            return ByteBuffer.allocate(0);
        }
        byte[] copy = new byte[length - (int) from];
        System.arraycopy(bytes, (int) from, copy, 0, copy.length);
        return ByteBuffer.wrap(copy);
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        int start = dst.position();
        int n = source.read(position, dst);
        if (n > 0 && position == length && length < cap) {
            int keep = Math.min(n, cap - length);
            if (length + keep > bytes.length) {
                // sized by what was read, not by the cap: a small file costs a small copy
                bytes = Arrays.copyOf(bytes, length + keep);
            }
            ByteBuffer got = dst.duplicate();
            got.position(start);
            got.get(bytes, length, keep);
            length += keep;
        }
        return n;
    }

    @Override
    public ReadableByteChannel openRange(long position, long length) throws IOException {
        return source.openRange(position, length);
    }

    @Override
    public long size() throws IOException {
        return source.size();
    }

    @Override
    public String name() {
        return source.name();
    }

    @Override
    public SourceStatistics statistics() {
        return source.statistics();
    }

    @Override
    public SourceIdentity identity() {
        return source.identity();
    }

    @Override
    public void close() {
        // the source belongs to the SafetensorsFile being opened
    }
}
