package dev.safetensors.spi;

import dev.safetensors.ErrorCode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * One object being written by an {@link ObjectWriterProvider}: bytes are written in order ({@link #write}), the
 * object appears whole on {@link #commit()}, and {@link #close()} without a commit aborts it, leaving the store as it
 * was. Not thread-safe: one caller writes, commits, and always closes; the implementation may upload parts in
 * parallel behind it.
 *
 * <p>Implementations extend {@link AbstractObjectUpload}, which keeps this state machine (closed after a commit,
 * an abort or a failure, the commit once, the abort idempotent and removing what was staged exactly once) the same
 * for every store; they supply appending, publishing and discarding.
 *
 * <pre>{@code
 * try (ObjectUpload upload = provider.create(location, UploadOptions.DEFAULT)) {
 *     upload.write(ByteBuffer.wrap(bytes));
 *     WrittenObject written = upload.commit();
 * }
 * }</pre>
 */
public interface ObjectUpload extends WritableByteChannel {

    /**
     * Appends the remaining bytes of {@code src}, all of them: on return {@code src} has none left. May block while
     * earlier parts upload, so that memory stays within {@link UploadOptions#maxBufferedBytes()}.
     *
     * @param src the bytes
     * @return how many were appended
     * @throws IOException if a part cannot be uploaded (the upload is then aborted) or the upload is closed
     */
    @Override
    int write(ByteBuffer src) throws IOException;

    /** @return how many bytes were appended so far */
    long written();

    /**
     * Uploads what is left, waits for every part, and makes the object visible, conditionally unless overwriting
     * is allowed. Where the store reports a checksum of what it holds, it is compared with the bytes written before
     * this returns. Call it once.
     *
     * @return what was written
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} if the object appeared meanwhile and is not to be
     *                     overwritten, {@link ErrorCode#CHECKSUM_MISMATCH} if the
     *                     store holds other bytes, or the store's failure; the upload is then aborted
     */
    WrittenObject commit() throws IOException;

    /**
     * Abandons the upload: staged parts are removed (an incomplete multipart upload aborted) and the object is left
     * as it was. Idempotent; after a commit it does nothing.
     *
     * @throws IOException if the store fails the abort (what is left then expires by the store's own rules)
     */
    void abort() throws IOException;

    /** Aborts the upload unless it committed. Idempotent. */
    @Override
    void close() throws IOException;
}
