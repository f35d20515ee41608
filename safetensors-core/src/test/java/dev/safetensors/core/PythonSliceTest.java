package dev.safetensors.core;

import dev.safetensors.Slice;
import dev.safetensors.ErrorCode;
import dev.safetensors.TensorAccessException;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Negative indices, open ends and the textual form of {@link Slice}, against the elements Python's indexing picks
 * from a 4 x 5 tensor of bytes (computed here from the whole tensor, index by index).
 */
class PythonSliceTest {
    private static final long ROWS = 4;
    private static final long COLUMNS = 5;

    /** @return what {@code m[rowStart:rowStop:rowStep, colStart:colStop:colStep]} holds, indices already resolved */
    private static byte[] expected(byte[] whole, long r0, long r1, long rs, long c0, long c1, long cs) {
        ByteBuffer out = ByteBuffer.allocate(whole.length);
        for (long r = r0; r < r1; r += rs) {
            for (long c = c0; c < c1; c += cs) {
                out.put(whole[(int) (r * COLUMNS + c)]);
            }
        }
        byte[] result = new byte[out.position()];
        out.flip().get(result);
        return result;
    }

    private static byte[] read(SafetensorsFile f, Slice... slices) throws IOException {
        ByteBuffer b = f.slice("m", slices).readBytes();
        byte[] result = new byte[b.remaining()];
        b.get(result);
        return result;
    }

    private static SafetensorsFile open() throws IOException {
        byte[] file = SafetensorsFixture.create().tensor("m", "U8", ROWS, COLUMNS).build();
        return SafetensorsFile.open(new MemorySource("mem", file));
    }

    @Test
    void negativeIndicesAndOpenEndsPickWhatPythonPicks() throws IOException {
        try (SafetensorsFile f = open()) {
            byte[] whole = read(f);
            // m[-3:]
            assertArrayEquals(expected(whole, 1, 4, 1, 0, 5, 1), read(f, Slice.from(-3)));
            // m[:, :-1]
            assertArrayEquals(expected(whole, 0, 4, 1, 0, 4, 1), read(f, Slice.all(), Slice.to(-1)));
            // m[-1] (kept as a dimension of size 1) and m[:, -2]
            assertArrayEquals(expected(whole, 3, 4, 1, 0, 5, 1), read(f, Slice.index(-1)));
            assertArrayEquals(expected(whole, 0, 4, 1, 3, 4, 1), read(f, Slice.all(), Slice.index(-2)));
            // m[-3:-1, 1:-1:2]
            assertArrayEquals(expected(whole, 1, 3, 1, 1, 4, 2), read(f, Slice.range(-3, -1),
                    Slice.range(1, -1, 2)));
            // m[-4:], the whole first dimension from its negative start
            assertArrayEquals(whole, read(f, Slice.from(-4)));
            assertArrayEquals(new long[] {3, 4}, f.slice("m", Slice.from(-3), Slice.to(-1)).shape());
        }
    }

    @Test
    void theTextualFormReadsAsPythonWritesIt() throws IOException {
        try (SafetensorsFile f = open()) {
            byte[] whole = read(f);
            assertArrayEquals(expected(whole, 1, 4, 1, 0, 4, 1), read(f, Slice.parseEach("-3:, :-1")));
            assertArrayEquals(expected(whole, 0, 4, 2, 1, 5, 3), read(f, Slice.parseEach("::2, 1::3")));
            assertArrayEquals(expected(whole, 2, 3, 1, 0, 5, 1), read(f, Slice.parseEach("2")));
            assertArrayEquals(expected(whole, 0, 4, 1, 4, 5, 1), read(f, Slice.parseEach(":, -1")));
        }
        for (String text : new String[] {":", "-3:", ":-1", "1:3", "-3:-1:2", "::2", "5:"}) {
            assertEquals(text, Slice.parse(text).toString(), "toString writes what parse reads");
        }
        assertEquals("-1:", Slice.parse("-1").toString(), "the last index");
    }

    @Test
    void boundsOutsideTheDimensionAreRefusedNotClamped() throws IOException {
        try (SafetensorsFile f = open()) {
            for (Slice[] bad : new Slice[][] {{Slice.from(-5)}, {Slice.to(-5)}, {Slice.all(), Slice.index(-6)},
                    {Slice.range(-1, -2)}, {Slice.index(4)}, {Slice.range(0, -1, 0)}}) {
                TensorAccessException e = assertThrows(TensorAccessException.class, () -> f.slice("m", bad));
                assertEquals(ErrorCode.INVALID_SLICE, e.code());
                assertEquals("m", e.tensor().orElseThrow());
            }
        }
    }

    @Test
    void textThatIsNotASliceIsRefusedWithItsCode() throws TensorAccessException {
        for (String bad : new String[] {"", "a:", "1:2:3:4", "1.5", ":x", "-", "99999999999999999999"}) {
            TensorAccessException e = assertThrows(TensorAccessException.class, () -> Slice.parse(bad), bad);
            assertEquals(ErrorCode.INVALID_SLICE, e.code(), bad);
        }
        assertEquals(1, Slice.parse("1:2:").step(), "Python allows an empty step");
        assertEquals(ErrorCode.INVALID_SLICE,
                assertThrows(TensorAccessException.class, () -> Slice.parseEach("1,,2")).code());
    }
}
