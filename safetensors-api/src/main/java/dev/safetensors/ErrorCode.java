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
    /** Rule 5: the header does not start with {@code {}. */
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
    SOURCE_CHANGED
}
