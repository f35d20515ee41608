package dev.safetensors.memory;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.core.SafetensorsFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Segments of the sample checkpoint against what {@link SafetensorsFile} reads of the same file: the same bytes,
 * read-only, little-endian layouts, the same widening; the two lifetimes (the file's arena, the caller's); and every
 * failure with its type and code.
 */
class SegmentFileTest {
    private static final Path SAMPLE = Path.of("..", "examples", "data", "sample.safetensors");

    @TempDir
    Path dir;

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    @Test
    void everyTensorIsTheBytesSafetensorsFileReads() throws IOException {
        try (SegmentFile f = SegmentFile.open(SAMPLE); SafetensorsFile reference = SafetensorsFile.open(SAMPLE)) {
            assertEquals(reference.header().tensors().size(), f.header().tensors().size());
            for (TensorInfo t : f.header().tensors()) {
                MemorySegment s = f.segment(t.name());
                assertTrue(s.isReadOnly(), t.name());
                assertArrayEquals(bytes(reference.readBytes(t.name())), bytes(s), t.name());
                try (Arena arena = Arena.ofConfined()) {
                    assertArrayEquals(bytes(s), bytes(f.segment(t.name(), arena)), t.name());
                }
            }
            MemorySegment embed = f.segment("embed.weight");
            float[] floats = reference.readFloat32("embed.weight");
            for (int i = 0; i < floats.length; i++) {
                assertEquals(floats[i], embed.getAtIndex(LittleEndian.FLOAT, i), "element " + i);
            }
            assertThrows(IllegalArgumentException.class, () -> embed.set(ValueLayout.JAVA_BYTE, 0, (byte) 1),
                    "read-only");
        }
    }

    @Test
    void wideningFromASegmentIsSafetensorsFilesWidening() throws IOException {
        try (SegmentFile f = SegmentFile.open(SAMPLE); SafetensorsFile reference = SafetensorsFile.open(SAMPLE)) {
            for (String name : new String[] {"embed.weight", "layer0.attn.weight", "layer0.norm.weight"}) {
                float[] expected = reference.readFloat32(name);
                float[] actual = new float[expected.length + 2];
                assertEquals(expected.length, f.readFloat32(name, 0, actual, 1, expected.length));
                float[] inner = new float[expected.length];
                System.arraycopy(actual, 1, inner, 0, expected.length);
                assertArrayEquals(expected, inner, name);
                float[] last = new float[1];
                SegmentWidening.readFloat32(f.segment(name), f.header().tensor(name).orElseThrow().dtype(),
                        expected.length - 1, last, 0, 1);
                assertEquals(expected[expected.length - 1], last[0], name);
            }
            UnsupportedDtypeException e = assertThrows(UnsupportedDtypeException.class,
                    () -> f.readFloat32("position_ids", 0, new float[4], 0, 4));
            assertEquals(ErrorCode.NOT_FLOAT_READABLE, e.code());
            assertThrows(IndexOutOfBoundsException.class, () -> f.readFloat32("embed.weight", 10, new float[4], 0, 3));
            assertThrows(IndexOutOfBoundsException.class, () -> f.readFloat32("embed.weight", 0, new float[4], 2, 3));
        }
    }

    @Test
    void theFilesSegmentsLiveUntilCloseAndTheCallersUntilTheirArenaCloses() throws IOException {
        MemorySegment owned;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callers;
            try (SegmentFile f = SegmentFile.open(SAMPLE)) {
                owned = f.segment("embed.weight");
                callers = f.segment("embed.weight", arena);
                f.close();
                StorageException closed = assertThrows(StorageException.class, () -> f.segment("embed.weight"));
                assertEquals(ErrorCode.IO_ERROR, closed.code());
                assertEquals(ErrorCode.IO_ERROR, assertThrows(StorageException.class,
                        () -> f.segment("embed.weight", arena)).code());
            }
            assertThrows(IllegalStateException.class, () -> owned.get(LittleEndian.FLOAT, 0),
                    "the file's arena is closed: no access to unmapped memory");
            try (SafetensorsFile reference = SafetensorsFile.open(SAMPLE)) {
                float[] expected = reference.readFloat32("embed.weight");
                assertEquals(expected[11], callers.getAtIndex(LittleEndian.FLOAT, 11),
                        "the caller's arena is open: its mapping outlives the file");
            }
        }
    }

    @Test
    void failuresCarryTheirTypeAndCode() throws IOException {
        try (SegmentFile f = SegmentFile.open(SAMPLE)) {
            TensorAccessException missing = assertThrows(TensorAccessException.class, () -> f.segment("nope"));
            assertEquals(ErrorCode.TENSOR_NOT_FOUND, missing.code());
            assertEquals("nope", missing.tensor().orElseThrow());
        }
        assertEquals(ErrorCode.NOT_A_FILE, assertThrows(StorageException.class, () -> SegmentFile.open(dir)).code());
        assertThrows(java.nio.file.NoSuchFileException.class, () -> SegmentFile.open(dir.resolve("missing")));

        Path bad = Files.write(dir.resolve("bad.safetensors"), new byte[] {2, 0, 0, 0, 0, 0, 0, 0, '[', ']'});
        InvalidHeaderException invalid = assertThrows(InvalidHeaderException.class, () -> SegmentFile.open(bad));
        assertEquals(ErrorCode.HEADER_START, invalid.code());

        Path copy = Files.copy(SAMPLE, dir.resolve("shrinking.safetensors"), StandardCopyOption.REPLACE_EXISTING);
        try (SegmentFile f = SegmentFile.open(copy)) {
            try (RandomAccessFile raf = new RandomAccessFile(copy.toFile(), "rw")) {
                raf.setLength(raf.length() - 10);
            }
            assertEquals(ErrorCode.TRUNCATED, assertThrows(StorageException.class, () -> f.segment("embed.weight"))
                    .code(), "checked before mapping");
            try (Arena arena = Arena.ofConfined()) {
                assertEquals(ErrorCode.TRUNCATED, assertThrows(StorageException.class,
                        () -> f.segment("position_ids", arena)).code());
            }
        }
    }
}
