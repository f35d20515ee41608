package dev.safetensors.fuzz;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.RequestCounter;

import java.nio.ByteBuffer;

/**
 * A whole file in memory behind the storage SPI. Each read hands out at most {@code maxPerRead} bytes, so a small
 * value makes the header reader take its path for sources that return less than asked before the end.
 */
final class InMemorySource implements RandomAccessSource {
    private final byte[] bytes;
    private final int maxPerRead;
    private final RequestCounter counter = new RequestCounter();

    InMemorySource(byte[] bytes, int maxPerRead) {
        this.bytes = bytes;
        this.maxPerRead = maxPerRead;
    }

    @Override
    public long size() {
        return bytes.length;
    }

    @Override
    public int read(long position, ByteBuffer dst) {
        counter.request();
        if (position >= bytes.length) {
            return -1;
        }
        int n = (int) Math.min(Math.min(dst.remaining(), maxPerRead), bytes.length - position);
        dst.put(bytes, (int) position, n);
        counter.bytes(n);
        return n;
    }

    @Override
    public String name() {
        return "fuzz-input";
    }

    @Override
    public SourceStatistics statistics() {
        return counter.snapshot();
    }

    @Override
    public void close() {
    }
}
