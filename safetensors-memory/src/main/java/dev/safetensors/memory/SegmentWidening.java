package dev.safetensors.memory;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.core.Float32Widening;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Widening to float32 from a segment, exactly as {@link dev.safetensors.core.SafetensorsFile#readFloat32(String)}
 * widens (the same code, {@link Float32Widening}: F32, F16, BF16 and the 8-bit floats). A tensor of any size is read a
 * range of elements at a time, into the caller's array. Stateless and thread-safe.
 */
public final class SegmentWidening {
    /** Elements widened per buffer view of the segment: a view of at most 4 MiB (F32) stays well below 2 GiB. */
    static final int BLOCK_ELEMENTS = 1 << 20;

    private SegmentWidening() {
    }

    /**
     * Widens {@code count} elements of {@code tensor} from element {@code firstElement} into {@code dst} from
     * {@code offset}.
     *
     * @param tensor       the tensor's bytes, little-endian, such as {@link SegmentFile#segment(String)} gives
     * @param dtype        the tensor's dtype
     * @param firstElement the index of the first element to widen, from 0
     * @param dst          where the floats go
     * @param offset       the index in {@code dst} of the first float
     * @param count        how many elements to widen
     * @return {@code count}
     * @throws UnsupportedDtypeException {@link ErrorCode#NOT_FLOAT_READABLE} for a dtype that is not widened
     * @throws IndexOutOfBoundsException if the elements are not all inside {@code tensor}, or {@code dst} has no room
     *                                   for them from {@code offset}
     * @throws IllegalStateException     if {@code tensor}'s arena is closed (as any access to it)
     */
    public static int readFloat32(MemorySegment tensor, DType dtype, long firstElement, float[] dst, int offset,
                                  int count) throws UnsupportedDtypeException {
        Objects.requireNonNull(tensor, "tensor");
        Objects.requireNonNull(dst, "dst");
        if (!Float32Widening.supports(dtype)) {
            throw new UnsupportedDtypeException(ErrorCode.NOT_FLOAT_READABLE, "<segment>", "dtype " + dtype
                    + " cannot be read as float32; readable are " + Float32Widening.supportedNames(), null, -1);
        }
        int size = dtype.byteSize();
        long elements = tensor.byteSize() / size;
        Objects.checkFromIndexSize(firstElement, count, elements);
        Objects.checkFromIndexSize(offset, count, dst.length);
        for (int done = 0; done < count; ) {
            int n = Math.min(BLOCK_ELEMENTS, count - done);
            MemorySegment block = tensor.asSlice((firstElement + done) * size, (long) n * size);
            done += Float32Widening.widen(dtype, block.asByteBuffer(), dst, offset + done);
        }
        return count;
    }
}
