package dev.safetensors.benchmarks;

import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/** A channel that accepts and drops everything, so a copy benchmark measures the reading side only. */
final class DiscardingChannel implements WritableByteChannel {
    @Override
    public int write(ByteBuffer src) {
        int n = src.remaining();
        src.position(src.limit());
        return n;
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void close() {
    }
}
