package dev.safetensors.core;

import dev.safetensors.DType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The public widening facade gives what the file reader gives, and inverts the narrowing. */
class Float32DecodingTest {
    @Test
    void everyF16AndBf16ValueWidensToWhatNarrowingTakesBack() {
        ByteBuffer all = ByteBuffer.allocate(1 << 17).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 1 << 16; i++) {
            all.putShort((short) i);
        }
        all.flip();
        for (DType d : new DType[]{DType.F16, DType.BF16}) {
            float[] wide = Float32Decoding.widen(d, all);
            assertEquals(1 << 16, wide.length);
            ByteBuffer back = Float32Narrowing.narrow(d, wide).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 1 << 16; i++) {
                short bits = back.getShort(i * 2);
                boolean nan = Float.isNaN(wide[i]);
                // NaNs come back quiet: the narrowing sets the quiet bit and keeps the rest
                int quiet = d == DType.F16 ? 0x0200 : 0x0040;
                assertEquals(nan ? (short) (i | quiet) : (short) i, bits, d + " bits " + Integer.toHexString(i));
            }
        }
    }

    @Test
    void f32IsCopiedAndOtherDtypesAreRefused() {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putFloat(1.5f).putFloat(-0f).flip();
        assertArrayEquals(new float[]{1.5f, -0f}, Float32Decoding.widen(DType.F32, b));
        assertEquals(0, b.position(), "the buffer is left as it was");
        assertThrows(IllegalArgumentException.class, () -> Float32Decoding.widen(DType.I32, b));
        assertThrows(IllegalArgumentException.class, () -> Float32Decoding.widen(DType.F32,
                ByteBuffer.allocate(3)));
    }
}
