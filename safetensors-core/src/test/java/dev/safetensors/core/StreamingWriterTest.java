package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.StorageException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.fixtures.MemorySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tensors from channels and source ranges; declared lengths enforced; nothing left behind on failure. */
class StreamingWriterTest {
    @TempDir
    Path dir;

    @Test
    void channelsSuppliersAndRangesGiveTheSameFileAsMemory() throws IOException {
        byte[] a = random(3 * BlockCopy.BLOCK_BYTES + 17, 1);
        byte[] b = random(4096, 2);
        byte[] whole = new byte[100 + b.length];
        System.arraycopy(b, 0, whole, 100, b.length);
        Path memory = dir.resolve("memory.safetensors");
        SafetensorsWriter.create().tensor("a", DType.U8, new long[] {a.length}, a)
                .tensor("b", DType.I32, new long[] {b.length / 4}, b).writeTo(memory);

        Path streamed = dir.resolve("streamed.safetensors");
        try (RandomAccessSource source = new MemorySource("whole", whole)) {
            SafetensorsWriter.create()
                    .tensor("a", DType.U8, new long[] {a.length},
                            TensorSource.of(Channels.newChannel(new ByteArrayInputStream(a)), a.length))
                    .tensor("b", DType.I32, new long[] {b.length / 4}, TensorSource.range(source, 100, b.length))
                    .writeTo(streamed);
        }
        assertArrayEquals(Files.readAllBytes(memory), Files.readAllBytes(streamed));

        Path supplied = dir.resolve("supplied.safetensors");
        SafetensorsWriter twice = SafetensorsWriter.create()
                .tensor("a", DType.U8, new long[] {a.length}, TensorSource.of(a.length,
                        () -> Channels.newChannel(new ByteArrayInputStream(a))))
                .tensor("b", DType.I32, new long[] {b.length / 4}, TensorSource.of(b));
        twice.writeTo(supplied);
        twice.writeTo(supplied);
        assertArrayEquals(Files.readAllBytes(memory), Files.readAllBytes(supplied));
    }

    @Test
    void aChannelThatEndsEarlyLeavesNothingBehind() throws IOException {
        Path target = dir.resolve("out.safetensors");
        SafetensorsWriter w = SafetensorsWriter.create().tensor("t", DType.U8, new long[] {10},
                TensorSource.of(Channels.newChannel(new ByteArrayInputStream(new byte[9])), 10));
        StorageException e = assertThrows(StorageException.class, () -> w.writeTo(target));
        assertEquals(ErrorCode.TRUNCATED, e.code());
        assertEquals(List.of(), List.of(dir.toFile().list()), "no target, no temporary file");
    }

    @Test
    void aChannelWithMoreBytesThanDeclaredLeavesTheOldFileAsItWas() throws IOException {
        Path target = dir.resolve("out.safetensors");
        Files.write(target, new byte[] {42});
        SafetensorsWriter w = SafetensorsWriter.create().tensor("t", DType.U8, new long[] {10},
                TensorSource.of(10, () -> Channels.newChannel(new ByteArrayInputStream(new byte[11]))));
        StorageException e = assertThrows(StorageException.class, () -> w.writeTo(target));
        assertEquals(ErrorCode.LENGTH_MISMATCH, e.code());
        assertArrayEquals(new byte[] {42}, Files.readAllBytes(target));
        assertEquals(List.of("out.safetensors"), List.of(dir.toFile().list()));
    }

    @Test
    void aDeclaredLengthThatDisagreesWithTheShapeIsRefusedBeforeWriting() {
        Path target = dir.resolve("out.safetensors");
        SafetensorsWriter w = SafetensorsWriter.create().tensor("t", DType.F32, new long[] {3},
                TensorSource.of(8, () -> {
                    throw new AssertionError("not opened");
                }));
        dev.safetensors.InvalidHeaderException e = assertThrows(dev.safetensors.InvalidHeaderException.class,
                () -> w.writeTo(target));
        assertEquals(ErrorCode.LENGTH_MISMATCH, e.code());
        assertFalse(Files.exists(target));
    }

    @Test
    void aOneShotChannelIsRefusedTheSecondTime() throws IOException {
        SafetensorsWriter w = SafetensorsWriter.create().tensor("t", DType.U8, new long[] {1},
                TensorSource.of(Channels.newChannel(new ByteArrayInputStream(new byte[1])), 1));
        w.writeTo(dir.resolve("first.safetensors"));
        StorageException e = assertThrows(StorageException.class, () -> w.writeTo(dir.resolve("second.safetensors")));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertFalse(Files.exists(dir.resolve("second.safetensors")));
    }

    @Test
    void anInterruptStopsWritingBetweenBlocks() throws IOException {
        Path target = dir.resolve("out.safetensors");
        int[] blocksRead = {0};
        ReadableByteChannel endless = new ReadableByteChannel() {
            @Override
            public int read(ByteBuffer dst) {
                int n = dst.remaining();
                dst.position(dst.limit());
                if (++blocksRead[0] == 2) {
                    Thread.currentThread().interrupt();
                }
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        long length = 64L * BlockCopy.BLOCK_BYTES;
        SafetensorsWriter w = SafetensorsWriter.create().tensor("t", DType.U8, new long[] {length},
                TensorSource.of(endless, length));
        try {
            InterruptedIOException e = assertThrows(InterruptedIOException.class, () -> w.writeTo(target));
            assertEquals(ErrorCode.INTERRUPTED, ErrorCode.of(e));
            assertTrue(Thread.currentThread().isInterrupted(), "the flag stays set for the caller");
        } finally {
            Thread.interrupted();
        }
        assertEquals(2, blocksRead[0], "no block is read after the interrupt");
        assertFalse(Files.exists(target));
        assertEquals(0, dir.toFile().list().length);
    }

    @Test
    void zerosBecomeHolesAndTheFileStillReadsBack() throws IOException {
        long length = 5L * BlockCopy.BLOCK_BYTES;
        byte[] tail = {1, 2, 3};
        Path target = dir.resolve("zeros.safetensors");
        SafetensorsWriter.create()
                .tensor("zeros", DType.U8, new long[] {length}, TensorSource.of(length,
                        () -> Channels.newChannel(new ByteArrayInputStream(new byte[(int) length]))))
                .tensor("tail", DType.U8, new long[] {3}, tail)
                .tensor("more_zeros", DType.U8, new long[] {BlockCopy.BLOCK_BYTES},
                        TensorSource.of(new byte[BlockCopy.BLOCK_BYTES]))
                .writeTo(target);
        SafetensorsHeader h = Safetensors.readHeader(target);
        assertEquals(Files.size(target), h.fileSize(), "a file that ends in a hole still has its full size");
        try (SafetensorsFile f = SafetensorsFile.open(target)) {
            ByteBuffer zeros = f.readBytes("zeros");
            assertEquals(length, zeros.remaining());
            assertEquals(-1, zeros.mismatch(ByteBuffer.allocate((int) length)));
            assertEquals(ByteBuffer.wrap(tail), f.readBytes("tail"));
        }
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

}
