package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link CastChannel}: the same bytes as widening then {@link Float32Narrowing}, across block boundaries. */
class CastChannelTest {
    private static byte[] drain(ReadableByteChannel ch, int capacity) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(capacity + 1);
        ByteBuffer small = ByteBuffer.allocate(1000);
        while (ch.read(small.clear()) >= 0) {
            all.put(small.flip());
        }
        byte[] out = new byte[all.position()];
        all.flip().get(out);
        return out;
    }

    @Test
    void f32ToF16AndBf16MatchesNarrowingOverSeveralBlocks() throws IOException {
        Random random = new Random(27);
        float[] values = new float[200_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.intBitsToFloat(random.nextInt());
        }
        byte[] f32 = Float32Narrowing.narrow(DType.F32, values).array();
        for (DType to : new DType[] {DType.F16, DType.BF16}) {
            try (CastChannel ch = CastChannel.of(DType.F32, to, Channels.newChannel(new ByteArrayInputStream(f32)))) {
                byte[] got = drain(ch, values.length * 2);
                assertEquals(Float32Narrowing.narrow(to, values), ByteBuffer.wrap(got), "F32 to " + to);
            }
        }
        byte[] bf16 = Float32Narrowing.narrow(DType.BF16, values).array();
        try (CastChannel ch = CastChannel.of(DType.BF16, DType.F32, Channels.newChannel(
                new ByteArrayInputStream(bf16)))) {
            byte[] widened = drain(ch, values.length * 4);
            assertEquals(CastChannel.convertedLength(DType.BF16, DType.F32, bf16.length), widened.length);
            ByteBuffer w = ByteBuffer.wrap(widened).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 1000; i++) {
                assertEquals(Float32Narrowing.toBFloat16(values[i]) << 16, w.getInt(4 * i) & 0xffff0000,
                        "BF16 widens exactly");
            }
        }
    }

    @Test
    void onlyDistinctFloatingTypesConvertAndAPartElementIsTruncated() {
        assertTrue(CastChannel.converts(DType.F16, DType.BF16));
        assertFalse(CastChannel.converts(DType.F16, DType.F16));
        assertFalse(CastChannel.converts(DType.I32, DType.F32));
        assertFalse(CastChannel.converts(DType.F64, DType.F32));
        assertThrows(IllegalArgumentException.class, () -> CastChannel.of(DType.I64, DType.F16,
                Channels.newChannel(new ByteArrayInputStream(new byte[8]))));
        StorageException e = assertThrows(StorageException.class, () -> drain(CastChannel.of(DType.F32, DType.F16,
                Channels.newChannel(new ByteArrayInputStream(new byte[6]))), 8));
        assertEquals(ErrorCode.TRUNCATED, e.code());
    }
}
