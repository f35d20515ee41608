package dev.safetensors.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/** A channel that takes at most a few bytes per write, as a socket may, collecting what it is given. */
final class ThrottledChannel implements WritableByteChannel {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final int maxPerWrite;

    ThrottledChannel(int maxPerWrite) {
        this.maxPerWrite = maxPerWrite;
    }

    @Override
    public int write(ByteBuffer src) {
        int n = Math.min(src.remaining(), maxPerWrite);
        for (int i = 0; i < n; i++) {
            bytes.write(src.get());
        }
        return n;
    }

    byte[] toByteArray() {
        return bytes.toByteArray();
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void close() {
    }
}
