package dev.safetensors;

/**
 * Why a safetensors operation failed. Every {@link SafetensorsException} carries exactly one code; the
 * numbered rules refer to {@code RULES.md}. Codes are stable: tools match on them, never on messages.
 */
public enum ErrorCode {
    /** Rule 1: the file is shorter than the 8-byte length prefix. */
    HEADER_TOO_SMALL,
    /** Rule 3: the declared header length exceeds {@link Limits#maxHeaderBytes()}. */
    HEADER_TOO_LARGE,
    /** Rule 4: the declared header length exceeds the bytes that follow the prefix. */
    HEADER_EXCEEDS_FILE,
    /** Rule 5: the header does not start with <code>{</code>. */
    HEADER_START,
    /** Rule 6: the bytes are recognisably something else (a Git LFS pointer, an HTML or XML page). */
    NOT_SAFETENSORS,
    /** Rule 7: the header is not strict UTF-8. */
    INVALID_UTF8,
    /** Rules 8 and 9: the header is not one strict JSON object followed only by whitespace. */
    INVALID_JSON,
    /** Rule 10: nesting deeper than {@link Limits#maxDepth()}. */
    TOO_DEEP,
    /** Rule 11: a name appears twice in the same object (compared after unescaping). */
    DUPLICATE_KEY,
    /** Rules 12 and 13: a string longer than its bound, counted in UTF-8 bytes. */
    STRING_TOO_LONG,
    /** Rule 14: more root entries than {@link Limits#maxEntries()}. */
    TOO_MANY_ENTRIES,
    /** Rule 14: more metadata keys than {@link Limits#maxMetadataKeys()}. */
    TOO_MANY_METADATA_KEYS,
    /** Rule 15: {@code __metadata__} is not an object of strings. */
    INVALID_METADATA,
    /** Rule 16: a tensor entry is not an object with exactly {@code dtype}, {@code shape}, {@code data_offsets}. */
    INVALID_TENSOR_ENTRY,
    /** Rule 17: a dtype outside the accepted set (thrown as {@link UnsupportedDtypeException}). */
    UNSUPPORTED_DTYPE,
    /** Rule 18: a shape with more dimensions than {@link Limits#maxRank()}. */
    RANK_TOO_LARGE,
    /** Rules 18 and 19: {@code data_offsets} is not two integers with begin &lt;= end. */
    INVALID_OFFSETS,
    /** Rule 18: a number that is not a plain integer literal between 0 and 2^63-1. */
    INVALID_NUMBER,
    /** Rule 20: the element count or byte length overflows signed 64-bit arithmetic. */
    OVERFLOW,
    /** Rule 20: {@code end - begin} differs from the byte length that dtype and shape imply. */
    LENGTH_MISMATCH,
    /** Official preset: a sub-byte dtype whose tensor is not a whole number of bytes. */
    MISALIGNED,
    /** Rule 21: bytes between two tensors, or before the first, belong to no tensor. */
    OFFSETS_GAP,
    /** Rule 21: two tensors share bytes. */
    OFFSETS_OVERLAP,
    /** Rule 21: bytes after the last tensor belong to no tensor. */
    TRAILING_BYTES,
    /** Rule 21: a tensor's range ends past the end of the file. */
    OUT_OF_FILE,
    /** Rule 23: {@code readFloat32} on a dtype that cannot be widened to float32. */
    NOT_FLOAT_READABLE,
    /** Rule 23: a tensor with more elements than {@link Limits#maxFloat32Elements()} (or a buffer can hold). */
    TOO_MANY_ELEMENTS,
    /** A tensor name that the header does not contain. */
    TENSOR_NOT_FOUND,
    /** A sharded checkpoint index that is malformed, hostile or inconsistent with its shards. */
    INVALID_INDEX,
    /** The storage answered a range request with other bytes than asked. */
    RANGE_NOT_HONOURED,
    /** The object changed between two reads of the same source. */
    SOURCE_CHANGED,
    /** A slice that the tensor's shape cannot satisfy: a wrong rank, a bound outside a dimension, a step below 1. */
    INVALID_SLICE,
    /** The object's size differs from the size it was expected to have (a manifest's entry, a recorded size). */
    SIZE_MISMATCH,
    /**
     * The SHA-256 of the whole object, computed locally, differs from the digest it was expected to have (a
     * manifest's entry, the Hugging Face Hub's LFS digest).
     */
    SHA256_MISMATCH,
    /** A file found where a manifest's files are listed (a folder, a prefix) that the manifest has no entry for. */
    NOT_IN_MANIFEST,
    /**
     * A model signature (an OpenSSF Model Signing bundle) is malformed: not a Sigstore bundle, too large, a payload
     * that is not a model-signing statement, or a statement whose subject digest disagrees with its own manifest.
     */
    INVALID_SIGNATURE_BUNDLE,
    /** A model signature does not verify: the signed payload or the signature was altered, or another key signed. */
    BAD_SIGNATURE,
    /**
     * A model signature verifies, but not by a signer the caller trusts: another key than the one given, a
     * certificate chain to no trusted CA or a leaf that may not sign, verification material of another method, or,
     * keyless, another identity or issuer, or a transparency-log entry or timestamp that does not hold.
     */
    UNTRUSTED_SIGNER,
    /** A model signature not verified here: a hash or key type not supported, or an unusable trusted root. */
    UNSUPPORTED_SIGNATURE,

    // Storage and request failures. They are reported with the JDK's types where one fits
    // (NoSuchFileException, AccessDeniedException, MalformedURLException, EOFException) and carry a code all the
    // same: see of(Throwable).

    /** The object, file or repository does not exist (HTTP 404 or 410, a missing file). */
    NOT_FOUND,
    /** The storage refused the credentials, or the file's permissions forbid reading (HTTP 401 or 403). */
    ACCESS_DENIED,
    /** The location names something that is not a regular file: a directory, a FIFO, a device. */
    NOT_A_FILE,
    /** The location cannot be listed: its storage has no listing call (plain {@code http(s)} URLs). */
    NOT_LISTABLE,
    /**
     * A listing the storage answered is malformed or does not end: a page larger than asked, an entry outside the
     * prefix, a continuation token repeated, more pages or entries than {@link ListOptions} allows.
     */
    INVALID_LISTING,
    /** The location is malformed for its scheme (an {@code s3://} without a key, a port out of range). */
    INVALID_SOURCE,
    /** A configured endpoint ({@code HF_ENDPOINT}, an S3 endpoint) is not a usable http(s) URL. */
    INVALID_ENDPOINT,
    /** No storage backend on the class or module path serves the location's scheme. */
    UNSUPPORTED_SCHEME,
    /** A request, a read or a whole transfer took longer than its deadline, or the server asked to wait too long. */
    TIMEOUT,
    /** The network failed: an unknown host, a refused or reset connection. */
    NETWORK,
    /** The storage kept failing (HTTP 5xx, 429) after the retries allowed. */
    SERVER_ERROR,
    /** The object ended before bytes the read expected (it shrank, or a body ended early). */
    TRUNCATED,
    /** The reading thread was interrupted. */
    INTERRUPTED,
    /**
     * A local folder holds the journal of a multi-file commit that a writer began and did not finish, so its files
     * may be a mix of two checkpoints. A read reports it and changes nothing; a writer (or {@code safetensors
     * recover}) finishes it, and only from a journal whose every name the writer itself generates.
     */
    INTERRUPTED_COMMIT,
    /**
     * An output is already there and the write was not told to replace it: a file of the same name, an earlier
     * layout of the same checkpoint, a non-empty output folder. Nothing was written; replacing it is the caller's
     * explicit choice ({@code --force}, {@code mode("overwrite")}).
     */
    ALREADY_EXISTS,
    /** An output could not be written: a full disk, a closed pipe, an output that is the input. */
    WRITE_FAILED,
    /**
     * A store holds other bytes than a write sent: its checksum of an uploaded part or object (S3 CRC32C, GCS
     * crc32c, Azure MD5) differs from the one computed locally, or it refused the bytes for theirs. The upload was
     * abandoned, and an object it had made visible deleted where the write was not replacing one.
     */
    CHECKSUM_MISMATCH,
    /** Any other input or output failure. */
    IO_ERROR,

    // Failures that are no property of the input: no exception of this library carries them and of(Throwable) never
    // returns them. A tool reports them for a throwable that is not an IOException, so that its output keeps one
    // vocabulary of codes.

    /**
     * The JVM ran out of memory ({@link OutOfMemoryError}) while the operation ran: a smaller parallelism or part
     * size, or a larger heap, lets it through.
     */
    OUT_OF_MEMORY,
    /**
     * A defect: an unchecked exception or an error where a checked failure with a code was due. It is worth a bug
     * report.
     */
    INTERNAL_ERROR;

    /**
     * The code a failure carries: its own for every {@link ErrorCoded} exception (all of this library's), otherwise
     * derived from the JDK type, so a caller can branch on every {@link java.io.IOException} without reading
     * messages.
     *
     * @param failure any throwable
     * @return the code; {@link #IO_ERROR} for an I/O failure of no known kind
     */
    public static ErrorCode of(Throwable failure) {
        if (failure instanceof ErrorCoded coded) {
            return coded.code();
        }
        if (failure instanceof java.nio.file.NoSuchFileException) {
            return NOT_FOUND;
        }
        if (failure instanceof java.nio.file.AccessDeniedException) {
            return ACCESS_DENIED;
        }
        if (failure instanceof java.nio.file.FileSystemLoopException) {
            return NOT_A_FILE;
        }
        if (failure instanceof java.net.MalformedURLException) {
            return INVALID_SOURCE;
        }
        if (failure instanceof java.net.SocketTimeoutException) {
            return TIMEOUT;
        }
        if (failure instanceof java.nio.channels.ClosedByInterruptException
                || failure instanceof java.nio.channels.FileLockInterruptionException
                || failure instanceof java.io.InterruptedIOException) {
            return INTERRUPTED;
        }
        if (failure instanceof java.net.UnknownHostException || failure instanceof java.net.ConnectException
                || failure instanceof java.net.SocketException) {
            return NETWORK;
        }
        if (failure instanceof java.io.EOFException) {
            return TRUNCATED;
        }
        return IO_ERROR;
    }
}
