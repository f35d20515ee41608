package dev.safetensors.core.internal.read;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Receives the blocks of a tensor streamed by {@link RangeStreamer}, in order. */
@FunctionalInterface
public interface BlockSink {
    /**
     * @param block the next bytes of the tensor, between position and limit; valid only during the call, and
     *              always a whole number of elements, because every block but the last is full
     * @throws IOException to stop the stream
     */
    void accept(ByteBuffer block) throws IOException;
}
