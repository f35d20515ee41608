package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link TensorShapes} gives every shape the verdict and code the header reader gives it. */
class TensorShapesTest {
    private static ErrorCode readerCode(String shape) {
        String header = "{\"t\":{\"dtype\":\"F32\",\"shape\":" + shape + ",\"data_offsets\":[0,0]}}";
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer file = ByteBuffer.allocate(8 + h.length).order(ByteOrder.LITTLE_ENDIAN);
        file.putLong(h.length).put(h);
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> Safetensors.readHeader("t", file.array(), Limits.STRICT));
        return e.code();
    }

    @Test
    void anOverflowOnTheWayIsOverflowEvenWhenAZeroFollowsAsInTheReader() throws InvalidHeaderException {
        long big = 1L << 40;
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> TensorShapes.elementCount("rows", "t", new long[]{big, big, 0}));
        assertEquals(ErrorCode.OVERFLOW, e.code());
        assertEquals(ErrorCode.OVERFLOW, readerCode("[1099511627776,1099511627776,0]"));
        assertEquals(ErrorCode.OVERFLOW, assertThrows(InvalidHeaderException.class,
                () -> TensorShapes.elementCount("rows", "t", new long[]{1L << 32, 1L << 32})).code());
        assertEquals(0, TensorShapes.elementCount("rows", "t", new long[]{0, big, big}), "a zero first is reached");
        assertEquals(1, TensorShapes.elementCount("rows", "t", new long[0]));
    }

    @Test
    void aNegativeDimensionIsAnInvalidNumberAsTheReaderSaysOfMinusOne() {
        assertEquals(ErrorCode.INVALID_NUMBER, assertThrows(InvalidHeaderException.class,
                () -> TensorShapes.elementCount("rows", "t", new long[]{-1, -1})).code());
        assertEquals(ErrorCode.INVALID_NUMBER, readerCode("[-1,-1]"));
    }

    @Test
    void theByteLengthOverflowsInBitsAsTheReaderCountsIt() throws InvalidHeaderException {
        assertEquals(ErrorCode.OVERFLOW, assertThrows(InvalidHeaderException.class,
                () -> TensorShapes.byteLength("rows", "t", DType.F32, new long[]{1L << 62})).code());
        assertEquals(ErrorCode.OVERFLOW, readerCode("[4611686018427387904]"));
        assertEquals(24, TensorShapes.byteLength("rows", "t", DType.F64, new long[]{3}));
    }
}
