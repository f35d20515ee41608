package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;

import java.io.IOException;
import java.util.function.Predicate;

/**
 * Creates and deletes the objects of one storage system: the write side of
 * {@link dev.safetensors.RandomAccessSourceProvider}, found the same way through {@link java.util.ServiceLoader}
 * ({@code provides dev.safetensors.spi.ObjectWriterProvider with ...}).
 *
 * <p>The contract every implementation keeps, checked by the test kit's {@code AbstractObjectWriterContractTest}:
 * <ul>
 *   <li><b>all or nothing</b>: an object appears, whole, only when its upload {@linkplain ObjectUpload#commit()
 *       commits}; before that, readers see the old object or none, never a part;</li>
 *   <li><b>no overwrite unless asked</b>: without {@link UploadOptions#overwrite()}, an object that exists when the
 *       upload starts or when it commits fails the upload with {@link ErrorCode#ALREADY_EXISTS} and is left as it
 *       was. Where the store offers a conditional create (S3 {@code If-None-Match: *}, GCS
 *       {@code ifGenerationMatch=0}, Azure {@code If-None-Match: *}) the commit uses it; a provider also checks
 *       before it uploads, so that a store that ignores the condition still refuses the common case;</li>
 *   <li><b>nothing billable left behind</b>: an upload aborted, closed without a commit, or failed removes what it
 *       staged (incomplete multipart uploads aborted, temporary files deleted, a resumable session cancelled), or
 *       leaves only what the store expires by itself and never lists (Azure's uncommitted blocks);</li>
 *   <li><b>bounded memory</b>: an upload holds at most {@link UploadOptions#maxBufferedBytes()} bytes of its
 *       content ({@code parallelism} parts in flight and the one being filled), whatever the object's size;</li>
 *   <li><b>coded failures</b>: every failure is an {@link IOException} with an {@link ErrorCode}
 *       ({@link ErrorCode#of(Throwable)}) that names the object by {@link Location#display()}, never by its text.</li>
 * </ul>
 *
 * <p>Implementations are thread-safe and have a public no-argument constructor. Their uploads extend
 * {@link AbstractObjectUpload}, so that only the store's requests differ from one backend to another.
 */
public interface ObjectWriterProvider {

    /**
     * @param location an object location such as {@code file:///out/m.safetensors} or {@code s3://bucket/key}
     * @return whether this provider writes it (usually a test of the scheme)
     */
    boolean supports(Location location);

    /**
     * Starts an upload. A provider may defer every request until the first part is full or the upload commits;
     * it checks, before it uploads anything, that the object is absent unless overwriting is allowed.
     *
     * @param object  where the object goes, a location this provider {@linkplain #supports supports}
     * @param options overwrite, size hint, part size and parallelism
     * @return the upload; the caller writes to it, commits, and always closes it
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} for an existing object not to be overwritten;
     *                     {@link ErrorCode#INVALID_SOURCE} for a location malformed for this provider;
     *                     {@link ErrorCode#WRITE_FAILED} or the store's own code if the upload cannot start
     */
    ObjectUpload create(Location object, UploadOptions options) throws IOException;

    /**
     * Deletes an object. Deleting an object that is absent succeeds: a cleanup after a crash may run twice.
     *
     * @param object a location this provider {@linkplain #supports supports}
     * @throws IOException if the store refuses or fails the delete
     */
    void delete(Location object) throws IOException;

    /**
     * Removes what uploads below a prefix staged and never committed or aborted, because the process writing them
     * was killed: a rerun of an interrupted write calls it so that nothing billable stays behind (S3's incomplete
     * multipart uploads). Committed objects are not touched; an upload still in progress below the prefix, in this
     * process or another, is aborted too, so a caller calls it only on a prefix it alone writes, or narrows it with
     * {@link #abortIncomplete(Location, Predicate)}.
     *
     * @param prefix a prefix of this provider's store, ending in {@code /}
     * @return how many staged uploads were removed
     * @throws IOException if the store refuses or fails the listing or an abort
     */
    default int abortIncomplete(Location prefix) throws IOException {
        return abortIncomplete(prefix, object -> true);
    }

    /**
     * As {@link #abortIncomplete(Location)}, for the staged uploads of the objects {@code objects} accepts only: a
     * writer that publishes some names under a prefix others also write aborts the uploads of those names and
     * leaves the rest alone. Stores whose staged data expires by itself and is never listed (Azure's uncommitted
     * blocks, GCS resumable sessions, a local file's temporary file, which its writer's janitor removes) keep the
     * default, which does nothing.
     *
     * @param prefix  a prefix of this provider's store, ending in {@code /}
     * @param objects given the location of the object an upload was for (each key segment percent-encoded, as
     *                listings name objects), whether to abort it
     * @return how many staged uploads were removed
     * @throws IOException if the store refuses or fails the listing or an abort
     */
    default int abortIncomplete(Location prefix, Predicate<Location> objects) throws IOException {
        return 0;
    }
}
