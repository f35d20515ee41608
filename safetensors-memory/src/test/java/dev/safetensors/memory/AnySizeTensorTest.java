package dev.safetensors.memory;

import dev.safetensors.ErrorCode;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.SafetensorsFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 3 GiB tensor (196,608 x 8,192 BF16, larger than the 2.1 GB Llama-3-70B embedding) in a sparse file: it maps as
 * one segment, in the file's arena and in the caller's, and its last element reads, raw and widened. The same tensor
 * is past what {@link SafetensorsFile#map} can give ({@link ErrorCode#TOO_MANY_ELEMENTS}). The file takes a few pages
 * of disk, whatever its length.
 */
class AnySizeTensorTest {
    private static final long ROWS = 196_608;
    private static final long COLUMNS = 8_192;
    private static final long BYTES = ROWS * COLUMNS * 2;

    @TempDir
    Path dir;

    /** @return a sparse file whose first element is 1.0 and whose last four are 1.5, -2, 0.25, 65280 (BF16) */
    private Path sparseFile() throws IOException {
        String json = "{\"w\":{\"dtype\":\"BF16\",\"shape\":[" + ROWS + "," + COLUMNS + "],\"data_offsets\":[0,"
                + BYTES + "]},\"__metadata__\":{\"format\":\"pt\"}}";
        StringBuilder padded = new StringBuilder(json);
        while ((8 + padded.length()) % 8 != 0) {
            padded.append(' ');
        }
        byte[] header = padded.toString().getBytes(StandardCharsets.UTF_8);
        Path file = dir.resolve("huge.safetensors");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(le(header.length));
            raf.write(header);
            long payload = 8 + header.length;
            raf.setLength(payload + BYTES);
            raf.seek(payload);
            raf.write(new byte[] {(byte) 0x80, 0x3f});                      // 1.0
            raf.seek(payload + BYTES - 8);
            raf.write(new byte[] {(byte) 0xc0, 0x3f, 0x00, (byte) 0xc0,     // 1.5, -2.0
                    (byte) 0x80, 0x3e, 0x7f, 0x47});                        // 0.25, 65280.0
        }
        return file;
    }

    private static byte[] le(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    @Test
    void aThreeGibTensorMapsAndItsLastElementReads() throws IOException {
        Path file = sparseFile();
        try (SegmentFile f = SegmentFile.open(file)) {
            TensorInfo t = f.header().tensor("w").orElseThrow();
            assertEquals(BYTES, t.end() - t.begin());

            MemorySegment w = f.segment("w");
            assertEquals(BYTES, w.byteSize());
            assertTrue(w.byteSize() > Integer.MAX_VALUE, "past what a ByteBuffer addresses");
            assertTrue(w.isReadOnly());
            long last = t.elementCount() - 1;
            assertEquals((short) 0x477f, w.getAtIndex(LittleEndian.SHORT, last));
            assertEquals((short) 0x3f80, w.getAtIndex(LittleEndian.SHORT, 0));

            float[] tail = new float[4];
            f.readFloat32("w", last - 3, tail, 0, 4);
            assertArrayEquals(new float[] {1.5f, -2f, 0.25f, 65280f}, tail);
            float[] middle = new float[3];
            SegmentWidening.readFloat32(w, t.dtype(), ROWS * COLUMNS / 2, middle, 0, 3);
            assertArrayEquals(new float[3], middle, "a hole of the sparse file reads as zeros");

            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mine = f.segment("w", arena);
                assertEquals(BYTES, mine.byteSize());
                assertEquals((short) 0xc000, mine.getAtIndex(LittleEndian.SHORT, last - 2));
            }
        }
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS, assertThrows(TensorAccessException.class, () -> f.map("w"))
                    .code(), "the JDK 17 API stops at 2 GiB: what this module is for");
        }
    }
}
