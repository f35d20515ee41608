package dev.safetensors;

import java.util.Arrays;
import java.util.Objects;

/**
 * One validated tensor entry of a header: its name, dtype, shape and byte range. Offsets are relative to the
 * start of the payload (the first byte after the header), as in the file; {@link SafetensorsHeader#payloadOffset()}
 * turns them into file positions.
 *
 * <p>Immutable and thread-safe. Instances are created by the validator, which has already checked that
 * {@code end - begin} equals the byte length that dtype and shape imply.
 */
public final class TensorInfo {
    private final String name;
    private final DType dtype;
    private final long[] shape;
    private final long begin;
    private final long end;
    private final long elementCount;

    /**
     * Creates a tensor entry. No layout check is made here: use the validator to obtain trusted instances.
     *
     * @param name         the tensor's name
     * @param dtype        its element type
     * @param shape        its dimensions (copied); empty for a scalar
     * @param begin        first payload byte
     * @param end          payload byte after the last
     * @param elementCount the product of the dimensions
     */
    public TensorInfo(String name, DType dtype, long[] shape, long begin, long end, long elementCount) {
        this.name = Objects.requireNonNull(name, "name");
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.shape = shape.clone();
        if (begin < 0 || end < begin || elementCount < 0) {
            throw new IllegalArgumentException("invalid range [" + begin + ", " + end + ") or count " + elementCount);
        }
        this.begin = begin;
        this.end = end;
        this.elementCount = elementCount;
    }

    /** @return the tensor's name as it appears (unescaped) in the header */
    public String name() {
        return name;
    }

    /** @return the element type */
    public DType dtype() {
        return dtype;
    }

    /** @return a copy of the dimensions; empty for a scalar */
    public long[] shape() {
        return shape.clone();
    }

    /** @return the number of dimensions */
    public int rank() {
        return shape.length;
    }

    /**
     * @param axis a dimension index, {@code 0 <= axis < rank()}
     * @return the size of that dimension
     */
    public long dimension(int axis) {
        return shape[axis];
    }

    /** @return the number of elements: the product of the dimensions, 1 for a scalar */
    public long elementCount() {
        return elementCount;
    }

    /** @return the first byte of the tensor, relative to the payload start */
    public long begin() {
        return begin;
    }

    /** @return the byte after the last byte of the tensor, relative to the payload start */
    public long end() {
        return end;
    }

    /** @return {@code end() - begin()} */
    public long byteLength() {
        return end - begin;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorInfo t && name.equals(t.name) && dtype == t.dtype && begin == t.begin
                && end == t.end && Arrays.equals(shape, t.shape);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, dtype, begin, end) * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return name + " " + dtype + Arrays.toString(shape) + " [" + begin + ", " + end + ")";
    }
}
