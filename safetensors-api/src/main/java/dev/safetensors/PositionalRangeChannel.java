package dev.safetensors;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ReadableByteChannel;

/** The default {@link RandomAccessSource#openRange}: a bounded cursor over positional reads. */
final class PositionalRangeChannel implements ReadableByteChannel {
    private final RandomAccessSource source;
    private final long end;
    private long position;
    private boolean open = true;

    PositionalRangeChannel(RandomAccessSource source, long position, long length) {
        this.source = source;
        this.position = position;
        this.end = position + length;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        if (position >= end) {
            return -1;
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        int want = (int) Math.min(dst.remaining(), end - position);
        ByteBuffer window = dst.duplicate();
        window.limit(window.position() + want);
        int n = source.read(position, window);
        if (n < 0) {
            throw new EOFException(source.name() + ": object ends at byte " + position + ", " + (end - position)
                    + " more bytes of the range were expected");
        }
        dst.position(dst.position() + n);
        position += n;
        return n;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }
}
