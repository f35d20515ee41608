package dev.safetensors.gcs;

/**
 * What the first response said about the object, pinned for every later request.
 *
 * @param generation the object's generation ({@code x-goog-generation})
 * @param size       the object's size in bytes
 * @param etag       the object's ETag, or {@code null} if none was sent
 */
record ObjectIdentity(long generation, long size, String etag) {
}
