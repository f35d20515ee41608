package dev.safetensors.cli.commands;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.fixtures.MemorySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The pull channel over a remote tensor's pushed parts: its bytes, its failures, and a close before the end. */
class FetchedTensorChannelTest {
    private static final int TENSOR_BYTES = 1 << 20;
    private static final ReadOptions PARTS = ReadOptions.builder().parallelism(4).partSizeBytes(64 * 1024).build();

    @TempDir
    Path dir;

    private byte[] checkpoint() throws IOException {
        byte[] values = new byte[TENSOR_BYTES];
        new Random(7).nextBytes(values);
        Path file = dir.resolve("m.safetensors");
        SafetensorsWriter.create().tensor("w", DType.F32, new long[] {TENSOR_BYTES / 4}, values).writeTo(file);
        return Files.readAllBytes(file);
    }

    private static ByteBuffer drain(FetchedTensorChannel channel) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(TENSOR_BYTES + 1);
        ByteBuffer block = ByteBuffer.allocate(10_000);
        while (channel.read(block.clear()) >= 0) {
            all.put(block.flip());
        }
        return all.flip();
    }

    @Test
    void deliversTheTensorFetchedInParts() throws IOException {
        MemorySource source = new MemorySource("mem://m", checkpoint());
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, false, PARTS);
             FetchedTensorChannel channel = FetchedTensorChannel.start(file, "w", source.name())) {
            assertEquals(file.readBytes("w"), drain(channel));
            assertEquals(-1, channel.read(ByteBuffer.allocate(1)));
        }
    }

    @Test
    void aFailedPartReachesTheReaderWithItsCode() throws IOException {
        byte[] bytes = checkpoint();
        RandomAccessSource failing = new FailingPayload(new MemorySource("mem://m", bytes), bytes.length / 2);
        try (SafetensorsFile file = SafetensorsFile.open(failing, Limits.STRICT, false, PARTS);
             FetchedTensorChannel channel = FetchedTensorChannel.start(file, "w", failing.name())) {
            StorageException e = assertThrows(StorageException.class, () -> drain(channel));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
        }
    }

    @Test
    void anUnknownTensorIsTheReadersFailure() throws IOException {
        MemorySource source = new MemorySource("mem://m", checkpoint());
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, false, PARTS);
             FetchedTensorChannel channel = FetchedTensorChannel.start(file, "nope", source.name())) {
            TensorAccessException e = assertThrows(TensorAccessException.class, () -> drain(channel));
            assertEquals(ErrorCode.TENSOR_NOT_FOUND, e.code());
        }
    }

    @Test
    void closingBeforeTheEndStopsTheFetch() throws IOException {
        MemorySource source = new MemorySource("mem://m", checkpoint());
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, false, PARTS)) {
            FetchedTensorChannel channel = FetchedTensorChannel.start(file, "w", source.name());
            assertEquals(100, channel.read(ByteBuffer.allocate(100)));
            // returns once the fetching thread has ended, though most of the tensor was never read
            channel.close();
            assertFalse(channel.isOpen());
            assertThrows(ClosedChannelException.class, () -> channel.read(ByteBuffer.allocate(1)));
        }
    }

    /** A remote store whose every read from {@code failFrom} on answers 500. */
    private record FailingPayload(MemorySource delegate, long failFrom) implements RandomAccessSource {
        @Override
        public long size() throws IOException {
            return delegate.size();
        }

        @Override
        public int read(long position, ByteBuffer dst) throws IOException {
            if (position + dst.remaining() > failFrom) {
                throw new StorageException(ErrorCode.SERVER_ERROR, name(), "500 Internal Server Error");
            }
            return delegate.read(position, dst);
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public SourceStatistics statistics() {
            return delegate.statistics();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
