package dev.safetensors.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/**
 * The one implementation of the {@link ObjectUpload} state machine, the same for every store: a subclass supplies
 * only {@link #append} ("take these bytes"), {@link #publish} ("make the object appear") and {@link #discard}
 * ("remove what you staged"), and may override {@link #coded} to give its store's raw failures an
 * {@link dev.safetensors.ErrorCode}. The rest is here:
 *
 * <ul>
 *   <li><b>Open.</b> {@link #write} hands all of {@code src} to {@link #append} and counts it in {@link #written()};
 *       once the upload is closed (committed, aborted, or failed) it throws {@link ClosedChannelException}, and so
 *       does a second {@link #commit()}.</li>
 *   <li><b>Commit.</b> {@link #commit()} closes the upload, then calls {@link #publish} once; what it returns is the
 *       commit's result.</li>
 *   <li><b>Failure.</b> When {@link #append} or {@link #publish} throws, the upload is closed and {@link #discard}
 *       is called at once; the failure (through {@link #coded}) is what the caller sees, a failure of the discard
 *       suppressed in it. A subclass therefore never discards on its own: one rule, so that staged data is removed
 *       exactly once whichever step failed.</li>
 *   <li><b>Abort.</b> {@link #abort()} and {@link #close()} close the upload and call {@link #discard} unless it
 *       was called already or {@link #publish} succeeded; so {@link #discard} runs at most once, never after a
 *       successful publish, and an upload that failed with an {@link Error} is still cleaned up by its
 *       close.</li>
 * </ul>
 *
 * <p>Not thread-safe, as {@link ObjectUpload} says: one caller writes, commits and closes. A subclass may upload
 * parts on threads of its own behind {@link #append}; it waits for them in {@link #publish} and {@link #discard}.
 */
public abstract class AbstractObjectUpload implements ObjectUpload {
    /** Where the upload is: OPEN takes bytes; COMMITTING is inside publish; the last two are final. */
    private enum State { OPEN, COMMITTING, COMMITTED, DISCARDED }

    private State state = State.OPEN;
    private long written;

    /** Creates an open upload that has written nothing. */
    protected AbstractObjectUpload() {
    }

    /**
     * Takes all the remaining bytes of {@code src}, uploading full parts as it goes (waiting while
     * {@link UploadOptions#parallelism()} are in flight). Called only while the upload is open.
     *
     * @param src the bytes; on a normal return it has none left
     * @throws IOException if a part cannot be staged; the upload is then discarded
     */
    protected abstract void append(ByteBuffer src) throws IOException;

    /**
     * Uploads what is left, waits for every part, makes the object visible (conditionally unless overwriting is
     * allowed) and checks the store's checksum where it reports one. Called once, by {@link #commit()}, with the
     * upload already closed and {@link #written()} final.
     *
     * @return what was written
     * @throws IOException {@link dev.safetensors.ErrorCode#ALREADY_EXISTS},
     *                     {@link dev.safetensors.ErrorCode#CHECKSUM_MISMATCH} or the store's failure; the upload is
     *                     then discarded, so what this leaves staged must be what {@link #discard} removes
     */
    protected abstract WrittenObject publish() throws IOException;

    /**
     * Removes what the upload staged (aborts a multipart upload, deletes a temporary file, stops part threads) and
     * lets go of its buffers; the object is left as it was. Called at most once, never after a successful
     * {@link #publish}: by {@link #abort()} or {@link #close()}, or after {@link #append} or {@link #publish}
     * failed, whatever state that left.
     *
     * @throws IOException if the store fails the removal (what is left then expires by the store's own rules)
     */
    protected abstract void discard() throws IOException;

    /**
     * The failure to report for one that {@link #append} or {@link #publish} threw. The default reports it as it
     * is; a subclass whose store throws uncoded exceptions codes them here, naming the object.
     *
     * @param failure what was thrown
     * @return what {@link #write} or {@link #commit()} throws
     */
    protected IOException coded(IOException failure) {
        return failure;
    }

    @Override
    public final int write(ByteBuffer src) throws IOException {
        if (state != State.OPEN) {
            throw new ClosedChannelException();
        }
        int n = src.remaining();
        try {
            append(src);
        } catch (IOException e) {
            throw discarded(coded(e));
        } catch (RuntimeException e) {
            throw discarded(e);
        }
        written += n;
        return n;
    }

    @Override
    public final long written() {
        return written;
    }

    @Override
    public final WrittenObject commit() throws IOException {
        if (state != State.OPEN) {
            throw new ClosedChannelException();
        }
        state = State.COMMITTING;
        WrittenObject object;
        try {
            object = publish();
        } catch (IOException e) {
            throw discarded(coded(e));
        } catch (RuntimeException e) {
            throw discarded(e);
        }
        state = State.COMMITTED;
        return object;
    }

    @Override
    public final void abort() throws IOException {
        if (state == State.COMMITTED || state == State.DISCARDED) {
            return;
        }
        state = State.DISCARDED;
        discard();
    }

    @Override
    public final boolean isOpen() {
        return state == State.OPEN;
    }

    @Override
    public final void close() throws IOException {
        abort();
    }

    /** @return the failure, once what the upload staged is discarded, a failure of that suppressed in it */
    private <T extends Exception> T discarded(T failure) {
        try {
            abort();
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
        return failure;
    }
}
