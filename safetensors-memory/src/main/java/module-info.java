/**
 * Read-only, little-endian {@link java.lang.foreign.MemorySegment} views of the tensors of a local safetensors file,
 * of any size (a {@link java.nio.ByteBuffer} stops at 2 GiB), with the lifetime of an {@link java.lang.foreign.Arena}:
 * the file's own ({@link dev.safetensors.memory.SegmentFile#segment(String)}) or the caller's
 * ({@link dev.safetensors.memory.SegmentFile#segment(String, java.lang.foreign.Arena)}), and widening to float32 from a
 * segment ({@link dev.safetensors.memory.SegmentWidening}). Needs JDK 22 or later; the header rules, limits and codes
 * are {@code dev.safetensors.core}'s.
 */
module dev.safetensors.memory {
    requires transitive dev.safetensors.core;

    exports dev.safetensors.memory;
}
