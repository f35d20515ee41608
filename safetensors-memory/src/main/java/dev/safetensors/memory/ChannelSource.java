package dev.safetensors.memory;

import dev.safetensors.spi.AbstractPositionalSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The header reads of a {@link SegmentFile} over the very channel its segments are mapped from, so the header that is
 * validated and the bytes that are mapped come from one open file, even if the path is replaced meanwhile. The
 * channel is the {@link SegmentFile}'s: closing this source leaves it open.
 */
final class ChannelSource extends AbstractPositionalSource {
    private final FileChannel channel;

    ChannelSource(FileChannel channel, String name, long size) {
        super(name, size);
        this.channel = channel;
    }

    @Override
    protected int readAt(long position, ByteBuffer dst) throws IOException {
        return channel.read(dst, position);
    }

    @Override
    protected void release() {
        // the channel belongs to the SegmentFile
    }
}
