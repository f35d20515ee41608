package dev.safetensors.memory;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The header reads of a {@link SegmentFile} over the very channel its segments are mapped from, so the header that is
 * validated and the bytes that are mapped come from one open file, even if the path is replaced meanwhile. The
 * channel is the {@link SegmentFile}'s: closing this source leaves it open.
 */
final class ChannelSource implements RandomAccessSource {
    private final FileChannel channel;
    private final String name;
    private final long size;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    ChannelSource(FileChannel channel, String name, long size) {
        this.channel = channel;
        this.name = name;
        this.size = size;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position " + position);
        }
        requests.incrementAndGet();
        if (position >= size) {
            return -1;
        }
        int n = channel.read(dst, position);
        if (n > 0) {
            bytes.addAndGet(n);
        }
        return n;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SourceStatistics statistics() {
        return new SourceStatistics(requests.get(), bytes.get(), 0);
    }

    @Override
    public void close() {
        // the channel belongs to the SegmentFile
    }
}
