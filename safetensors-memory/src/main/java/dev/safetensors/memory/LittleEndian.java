package dev.safetensors.memory;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The layouts that read safetensors elements from a segment: little-endian, as the format stores them, and unaligned,
 * since a tensor starts at any byte of the file (the header's length decides). A segment has no byte order of its own;
 * these layouts carry it, whatever the platform's order:
 *
 * <pre>{@code
 * float last = segment.getAtIndex(LittleEndian.FLOAT, elementCount - 1);   // F32
 * short bits = segment.getAtIndex(LittleEndian.SHORT, i);                  // F16 or BF16 bits, I16
 * }</pre>
 */
public final class LittleEndian {
    /** F32. */
    public static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** F64. */
    public static final ValueLayout.OfDouble DOUBLE =
            ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** I16, U16 (as bits), and the bits of F16 and BF16 (widen them with {@link SegmentWidening}). */
    public static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** I32, U32 (as bits). */
    public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** I64, U64 (as bits). */
    public static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private LittleEndian() {
    }
}
