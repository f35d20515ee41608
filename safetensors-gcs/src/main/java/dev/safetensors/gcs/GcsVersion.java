package dev.safetensors.gcs;

/**
 * Which object a source reads: the generation (asked for in the URI, or pinned from the first answer), sent as
 * {@code generation=G&ifGenerationMatch=G}, and the ETag the answers report, for attributes.
 *
 * @param generation the generation
 * @param etag       the ETag, or {@code null} while none was seen
 */
record GcsVersion(long generation, String etag) {
    @Override
    public String toString() {
        return Long.toString(generation);
    }
}
