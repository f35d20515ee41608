package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.util.Objects;

/**
 * A channel over a floating tensor's bytes converted to another floating dtype while they are read: F32, F16 and
 * BF16 in, F32, F16 or BF16 out, widened exactly to float32 ({@code Float32Widening}) then narrowed with
 * {@link Float32Narrowing} (round to nearest, ties to even; NaN stays a quiet NaN; too large becomes infinity).
 * Memory is two blocks of 64 Ki elements whatever the tensor's size. A source that ends inside an element is
 * {@link ErrorCode#TRUNCATED}.
 *
 * <pre>{@code
 * try (ReadableByteChannel bf16 = CastChannel.of(DType.F32, DType.BF16, source.openRange(begin, length))) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Not thread-safe.
 */
public final class CastChannel implements ReadableByteChannel {
    private static final int ELEMENTS = 64 * 1024;

    private final DType from;
    private final DType to;
    private final ReadableByteChannel in;
    private final ByteBuffer src;
    private final ByteBuffer dst;
    private final float[] values = new float[ELEMENTS];
    private boolean ended;

    private CastChannel(DType from, DType to, ReadableByteChannel in) {
        this.from = from;
        this.to = to;
        this.in = in;
        this.src = ByteBuffer.allocate(ELEMENTS * from.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        this.dst = ByteBuffer.allocate(ELEMENTS * to.byteSize()).order(ByteOrder.LITTLE_ENDIAN).limit(0);
    }

    /**
     * @param from a dtype
     * @param to   a dtype
     * @return whether {@link #of} converts {@code from} into {@code to}: both F32, F16 or BF16, and different
     */
    public static boolean converts(DType from, DType to) {
        return from != to && Float32Narrowing.supports(from) && Float32Narrowing.supports(to);
    }

    /**
     * @param from the dtype of the bytes {@code in} delivers
     * @param to   the dtype to deliver
     * @param in   little-endian elements of {@code from}; closed with this channel
     * @return a channel delivering the same elements as little-endian {@code to}
     * @throws IllegalArgumentException unless {@link #converts(DType, DType)}
     */
    public static CastChannel of(DType from, DType to, ReadableByteChannel in) {
        if (!converts(Objects.requireNonNull(from, "from"), Objects.requireNonNull(to, "to"))) {
            throw new IllegalArgumentException("cannot convert " + from + " to " + to + ": F32, F16 and BF16 only");
        }
        return new CastChannel(from, to, Objects.requireNonNull(in, "in"));
    }

    /**
     * @param from  the dtype read
     * @param to    the dtype delivered
     * @param bytes the byte length of the elements read
     * @return the byte length of the same elements as {@code to}
     */
    public static long convertedLength(DType from, DType to, long bytes) {
        return bytes / from.byteSize() * to.byteSize();
    }

    @Override
    public int read(ByteBuffer out) throws IOException {
        if (!dst.hasRemaining() && !fill()) {
            return -1;
        }
        int n = Math.min(out.remaining(), dst.remaining());
        out.put(out.position(), dst, dst.position(), n);
        out.position(out.position() + n);
        dst.position(dst.position() + n);
        return n;
    }

    /** @return whether more converted bytes are ready */
    private boolean fill() throws IOException {
        while (!ended && src.hasRemaining()) {
            if (in.read(src) < 0) {
                ended = true;
            }
        }
        src.flip();
        int size = from.byteSize();
        if (src.remaining() % size != 0) {
            throw new StorageException(ErrorCode.TRUNCATED, "<" + from + " to " + to + ">", "the source ended inside"
                    + " an element");
        }
        int n = Float32Widening.widen(from, src, 0, src.remaining(), values, 0);
        src.clear();
        dst.clear();
        Float32Narrowing.narrow(to, values, 0, n, dst);
        dst.flip();
        return n > 0;
    }

    @Override
    public boolean isOpen() {
        return in.isOpen();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
