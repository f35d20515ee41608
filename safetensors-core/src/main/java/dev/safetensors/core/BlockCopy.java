package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Copies tensors into an output through one reusable 1 MiB buffer, so memory stays bounded whatever the sizes. The
 * interrupt flag is checked before every block (it stays set for the caller to see). A source must deliver exactly
 * its declared length.
 *
 * <p>Into a {@link FileChannel}, a block of zeros is skipped rather than written (the file grows over it when a later
 * byte is written, or at {@link #finish}), so a sparse input gives a sparse output and a file of zeros costs no disk.
 * Not thread-safe.
 */
final class BlockCopy {
    static final int BLOCK_BYTES = 1 << 20;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(BLOCK_BYTES).asReadOnlyBuffer();

    private final String target;
    private final WritableByteChannel out;
    private final FileChannel file;
    private final ByteBuffer block;
    private long written;

    /**
     * @param target the output's name, for messages
     * @param out    where the bytes go; written from its position
     */
    BlockCopy(String target, WritableByteChannel out) {
        this(target, out, newBlock());
    }

    /**
     * @param target the output's name, for messages
     * @param out    where the bytes go; written from its position
     * @param block  the buffer to copy through, of {@link #BLOCK_BYTES}, shared by the copies of one writer (one at
     *               a time)
     */
    BlockCopy(String target, WritableByteChannel out, ByteBuffer block) {
        this.target = target;
        this.out = out;
        this.file = null;
        this.block = block;
    }

    /**
     * @param target the output's name, for messages
     * @param file   a new file of this writer's own, written from position 0, where zeros may be left as holes
     */
    BlockCopy(String target, FileChannel file) {
        this(target, file, newBlock());
    }

    /**
     * @param target the output's name, for messages
     * @param file   a new file of this writer's own, written from position 0, where zeros may be left as holes
     * @param block  the buffer to copy through, of {@link #BLOCK_BYTES}, shared by the copies of one writer (one at
     *               a time), so writing many files costs one buffer
     */
    BlockCopy(String target, FileChannel file, ByteBuffer block) {
        this.target = target;
        this.out = file;
        this.file = file;
        this.block = block;
    }

    /** @return a buffer for {@link #BlockCopy(String, FileChannel, ByteBuffer)} */
    static ByteBuffer newBlock() {
        return ByteBuffer.allocateDirect(BLOCK_BYTES);
    }

    /** @return the bytes written or skipped so far */
    long written() {
        return written;
    }

    /** Writes bytes given in memory, in blocks. */
    void write(ByteBuffer bytes) throws IOException {
        ByteBuffer b = bytes.duplicate();
        while (b.hasRemaining()) {
            checkInterrupt();
            ByteBuffer part = b.slice();
            part.limit(Math.min(part.remaining(), BLOCK_BYTES));
            b.position(b.position() + part.remaining());
            emit(part);
        }
    }

    /** Copies a tensor's bytes, checking that the source delivers exactly its declared length. */
    void copy(TensorSource source) throws IOException {
        ByteBuffer memory = source.memory();
        if (memory != null) {
            write(memory);
            return;
        }
        long length = source.length();
        try (ReadableByteChannel in = source.open()) {
            long done = 0;
            while (done < length) {
                checkInterrupt();
                block.clear();
                block.limit((int) Math.min(BLOCK_BYTES, length - done));
                while (block.hasRemaining()) {
                    int n = in.read(block);
                    if (n < 0) {
                        throw new StorageException(ErrorCode.TRUNCATED, source.name(), "delivered "
                                + (done + block.position()) + " bytes of the " + length + " declared for the tensor"
                                + " written to " + target);
                    }
                }
                block.flip();
                done += block.remaining();
                // checked again before writing: an interrupt inside the read would otherwise close the output
                // channel (ClosedByInterruptException) instead of being reported as an interrupt
                checkInterrupt();
                emit(block);
            }
            block.clear().limit(1);
            if (in.read(block) > 0) {
                throw new StorageException(ErrorCode.LENGTH_MISMATCH, source.name(), "has more than the " + length
                        + " bytes declared for the tensor written to " + target);
            }
        }
    }

    /** Gives a file that ends in skipped zeros its full size. */
    void finish() throws IOException {
        try {
            if (file != null && file.size() < written) {
                file.write(ByteBuffer.allocate(1), written - 1);
            }
        } catch (IOException e) {
            throw writeFailed(target, e);
        }
    }

    private void emit(ByteBuffer b) throws IOException {
        int n = b.remaining();
        try {
            if (file != null && n > 0 && b.mismatch(ZEROS.duplicate().limit(n)) < 0) {
                file.position(file.position() + n);
            } else {
                while (b.hasRemaining()) {
                    out.write(b);
                }
            }
        } catch (IOException e) {
            throw writeFailed(target, e);
        }
        written += n;
    }

    /**
     * @param target the output's name
     * @param e      a failure of the output (a full disk, a closed pipe, an I/O error of the device)
     * @return the failure as the output's: {@link ErrorCode#WRITE_FAILED} naming the output, an interrupt kept as it
     *         is ({@link ErrorCode#INTERRUPTED})
     */
    static IOException writeFailed(String target, IOException e) {
        if (e instanceof java.io.InterruptedIOException || e instanceof java.nio.channels.ClosedByInterruptException
                || e instanceof StorageException) {
            return e;
        }
        String reason = e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
                : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        return new StorageException(ErrorCode.WRITE_FAILED, target, "cannot be written: " + reason, e);
    }

    private void checkInterrupt() throws InterruptedIOException {
        if (Thread.currentThread().isInterrupted()) {
            InterruptedIOException e = new InterruptedIOException(target + ": writing interrupted after " + written
                    + " bytes");
            e.bytesTransferred = (int) Math.min(Integer.MAX_VALUE, written);
            throw e;
        }
    }
}
