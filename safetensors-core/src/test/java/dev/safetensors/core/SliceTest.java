package dev.safetensors.core;

import dev.safetensors.Slice;
import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import dev.safetensors.core.internal.header.ShapeArithmetic;

/**
 * Slices against a naive element-by-element reference, on random shapes of rank 0 to 6 and every strict dtype, with
 * and without steps, from a remote-like source (parallel parts, coalescing), a local file (the mapping) and the bytes
 * read with the header; and the requests a remote slice costs.
 */
class SliceTest {
    private static final List<DType> STRICT = new ArrayList<>(DType.strictSet());

    @TempDir
    Path dir;

    @Test
    void randomSlicesMatchTheNaiveReference() throws IOException {
        SplittableRandom random = new SplittableRandom(20261130);
        for (int round = 0; round < 400; round++) {
            DType dtype = STRICT.get(random.nextInt(STRICT.size()));
            int rank = random.nextInt(7);
            long[] shape = new long[rank];
            for (int i = 0; i < rank; i++) {
                // mostly small dimensions; now and then a large last one so runs and parts span blocks
                shape[i] = i == rank - 1 && random.nextInt(4) == 0 ? 1 + random.nextInt(40_000) : random.nextInt(6);
            }
            if (ShapeArithmetic.elementCount(shape) * dtype.byteSize() > 4_000_000) {
                continue;
            }
            Slice[] slices = randomSlices(random, shape);
            check(random, dtype, shape, slices, round);
        }
    }

    private void check(SplittableRandom random, DType dtype, long[] shape, Slice[] slices, int round)
            throws IOException {
        int size = dtype.byteSize();
        int count = (int) ShapeArithmetic.elementCount(shape);
        byte[] payload = new byte[4 + count * size];
        random.nextBytes(payload);
        // a small tensor first, so the sliced one does not start at payload offset 0
        byte[] file = TensorFiles.withPayload(SafetensorsFixture.create().tensor("pad", "U8", 4)
                .tensor("t", dtype.name(), shape), payload);
        byte[] tensor = Arrays.copyOfRange(payload, 4, payload.length);
        byte[] expected = naive(tensor, shape, size, slices);
        String what = "round " + round + ": " + dtype + Arrays.toString(shape) + Arrays.toString(slices);

        ReadOptions options = ReadOptions.builder()
                .parallelism(1 + random.nextInt(4))
                .partSizeBytes(ReadOptions.MIN_PART_SIZE_BYTES)
                .coalesceGapBytes(new int[] {0, 16, 4096, ReadOptions.DEFAULT_COALESCE_GAP_BYTES}[random.nextInt(4)])
                .build();
        // prefetching 8 bytes keeps the tensor out of the header's bytes; the default holds the small ones
        Limits limits = random.nextBoolean() ? Limits.STRICT : Limits.builder().prefetchBytes(8).build();
        try (SafetensorsFile remote = SafetensorsFile.open(MemorySource.remoteLike(file), limits, true, options)) {
            assertSlice(remote, dtype, slices, expected, what + " remote-like " + options);
        }
        Path path = dir.resolve("slice.safetensors");
        Files.write(path, file);
        try (SafetensorsFile local = SafetensorsFile.open(path)) {
            assertSlice(local, dtype, slices, expected, what + " local");
        }
    }

    private static void assertSlice(SafetensorsFile file, DType dtype, Slice[] slices, byte[] expected, String what)
            throws IOException {
        TensorSlice slice = file.slice("t", slices);
        assertEquals(expected.length, slice.byteLength(), what);
        ByteBuffer heap = slice.readBytes();
        assertArrayEquals(expected, array(heap), what + " readBytes()");
        ByteBuffer direct = ByteBuffer.allocateDirect(expected.length + 3).position(3);
        assertEquals(expected.length, slice.readBytes(direct), what);
        assertEquals(expected.length + 3, direct.position(), what);
        assertArrayEquals(expected, array(direct.flip().position(3)), what + " readBytes(direct)");
        if (Float32Widening.supports(dtype)) {
            float[] reference = new float[expected.length / dtype.byteSize()];
            Float32Widening.widen(dtype, ByteBuffer.wrap(expected), reference, 0);
            assertArrayEquals(bits(reference), bits(slice.readFloat32()), what + " readFloat32()");
            FloatBuffer floats = ByteBuffer.allocateDirect(4 * reference.length).asFloatBuffer();
            slice.readFloat32(floats);
            float[] got = new float[reference.length];
            floats.flip().get(got);
            assertArrayEquals(bits(reference), bits(got), what + " readFloat32(direct)");
        }
    }

    /** The reference: every element of the result, one at a time, from its index in the tensor. */
    private static byte[] naive(byte[] tensor, long[] shape, int size, Slice[] slices) {
        int rank = shape.length;
        long[] start = new long[rank];
        long[] step = new long[rank];
        long[] n = new long[rank];
        long total = 1;
        for (int i = 0; i < rank; i++) {
            Slice s = i < slices.length ? slices[i] : Slice.all();
            start[i] = s.start();
            step[i] = s.step();
            long stop = s.stop(shape[i]);
            n[i] = 0;
            for (long x = start[i]; x < stop; x += step[i]) {
                n[i]++;
            }
            total *= n[i];
        }
        byte[] out = new byte[(int) total * size];
        long[] index = new long[rank];
        for (int e = 0; e < total; e++) {
            long flat = 0;
            for (int i = 0; i < rank; i++) {
                flat = flat * shape[i] + start[i] + index[i] * step[i];
            }
            System.arraycopy(tensor, (int) flat * size, out, e * size, size);
            for (int i = rank - 1; i >= 0; i--) {
                if (++index[i] < n[i]) {
                    break;
                }
                index[i] = 0;
            }
        }
        return out;
    }

    private static Slice[] randomSlices(SplittableRandom random, long[] shape) {
        Slice[] slices = new Slice[random.nextInt(shape.length + 1)];
        for (int i = 0; i < slices.length; i++) {
            long d = shape[i];
            if (random.nextInt(4) == 0) {
                slices[i] = Slice.all();
                continue;
            }
            long a = random.nextLong(d + 1);
            long b = a + random.nextLong(d - a + 1);
            slices[i] = random.nextBoolean() ? Slice.range(a, b) : Slice.range(a, b, 1 + random.nextInt(4));
        }
        return slices;
    }

    @Test
    void aRowRangeOfAMatrixIsOneRequest() throws IOException {
        // 1024 x 256 F32: 1 MiB, well past the 128 KiB read with the header
        byte[] file = SafetensorsFixture.create().tensor("w", "F32", 1024, 256).build();
        MemorySource source = MemorySource.remoteLike(file);
        try (SafetensorsFile f = SafetensorsFile.open(source)) {
            long base = f.header().payloadOffset();
            TensorSlice rows = f.slice("w", Slice.range(500, 600));
            assertEquals(1, rows.runCount());
            rows.readFloat32();
            List<long[]> ranges = source.ranges();
            assertEquals(1, ranges.size(), "one request");
            assertArrayEquals(new long[] {base + 500 * 1024, 100 * 1024}, ranges.get(0), "exactly the rows");

            // a column range: 1024 runs of 40 bytes, 984 bytes apart, which the default gap coalesces into one
            f.slice("w", Slice.all(), Slice.range(10, 20)).readBytes();
            assertEquals(2, source.ranges().size());
            assertArrayEquals(new long[] {base + 40, 1023 * 1024 + 40}, source.ranges().get(1));

            // every 256th row: 4 runs 1 MiB / 4 apart, within the default gap: one request from row 0 to row 769
            f.slice("w", Slice.range(0, 1024, 256)).readBytes();
            assertEquals(3, source.ranges().size());
        }
        MemorySource noGap = MemorySource.remoteLike(file);
        ReadOptions exact = ReadOptions.builder().coalesceGapBytes(0).build();
        try (SafetensorsFile f = SafetensorsFile.open(noGap, Limits.STRICT, true, exact)) {
            f.slice("w", Slice.range(0, 1024, 256)).readBytes();
            assertEquals(4, noGap.ranges().size(), "four separate rows, four requests");
            for (long[] r : noGap.ranges()) {
                assertEquals(1024, r[1], "one row each");
            }
        }
    }

    @Test
    void aSliceWithinTheHeaderBytesCostsNoRequest() throws IOException {
        byte[] file = SafetensorsFixture.create().tensor("small", "F32", 16, 16).build();
        MemorySource source = MemorySource.remoteLike(file);
        try (SafetensorsFile f = SafetensorsFile.open(source)) {
            long after = source.statistics().requests();
            f.slice("small", Slice.range(2, 4), Slice.range(0, 16, 3)).readFloat32();
            assertEquals(after, source.statistics().requests());
        }
    }

    @Test
    void invalidSlicesAreRefusedWithTheirCode() throws IOException {
        byte[] file = SafetensorsFixture.create().tensor("m", "F32", 4, 5).tensor("s", "I64").build();
        try (SafetensorsFile f = SafetensorsFile.open(new MemorySource("mem", file))) {
            for (Slice[] bad : new Slice[][] {
                    {Slice.all(), Slice.all(), Slice.all()},
                    {Slice.range(0, 5)},
                    {Slice.range(5, 5)},
                    {Slice.range(-1, 2)},
                    {Slice.range(3, 2)},
                    {Slice.range(0, 4, 0)},
                    {Slice.all(), Slice.range(0, 5, -1)},
                    {Slice.index(4)},
                    {null}}) {
                TensorAccessException e = assertThrows(TensorAccessException.class, () -> f.slice("m", bad),
                        Arrays.toString(bad));
                assertEquals(ErrorCode.INVALID_SLICE, e.code());
                assertEquals("m", e.tensor().orElseThrow());
            }
            assertEquals(ErrorCode.INVALID_SLICE,
                    assertThrows(TensorAccessException.class, () -> f.slice("s", Slice.all())).code(),
                    "a scalar has no dimension to slice");
            assertEquals(8, f.slice("s").readBytes().remaining(), "the scalar itself");
            assertEquals(0, f.slice("m", Slice.range(2, 2)).readFloat32().length, "an empty slice");
            assertArrayEquals(new long[] {2, 5}, f.slice("m", Slice.range(1, 4, 2)).shape());
        }
        byte[] packed = SafetensorsFixture.create().tensor("p", "F4", new long[] {4}, 0, 2).build();
        try (SafetensorsFile f = SafetensorsFile.open(new MemorySource("mem", packed), Limits.OFFICIAL)) {
            assertEquals(ErrorCode.INVALID_SLICE,
                    assertThrows(TensorAccessException.class, () -> f.slice("p", Slice.all())).code());
        }
    }

    @Test
    void aBufferWithTooLittleRoomIsRefusedBeforeReading() throws IOException {
        byte[] file = SafetensorsFixture.create().tensor("m", "BF16", 4, 5).build();
        try (SafetensorsFile f = SafetensorsFile.open(new MemorySource("mem", file))) {
            TensorSlice s = f.slice("m", Slice.range(0, 2));
            ByteBuffer small = ByteBuffer.allocate(19);
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS,
                    assertThrows(TensorAccessException.class, () -> s.readBytes(small)).code());
            assertEquals(0, small.position());
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS,
                    assertThrows(TensorAccessException.class, () -> s.readFloat32(FloatBuffer.allocate(9))).code());
        }
    }

    private static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    private static int[] bits(float[] f) {
        int[] b = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            b[i] = Float.floatToRawIntBits(f[i]);
        }
        return b;
    }
}
