package dev.safetensors.core;

import dev.safetensors.DType;

import java.nio.ByteBuffer;

/**
 * The library's exact widening of little-endian float elements to float32, for callers that hold a tensor's bytes
 * themselves (a Spark row, a network message): the same conversion {@link SafetensorsFile#readFloat32} applies,
 * subnormals, -0.0, infinities and NaN payloads kept.
 */
public final class Float32Decoding {
    private Float32Decoding() {
    }

    /**
     * @param dtype an element type
     * @return whether its elements widen to float32: F32, F16, BF16 and the 8-bit floats
     */
    public static boolean supports(DType dtype) {
        return Float32Widening.supports(dtype);
    }

    /**
     * @param dtype a {@linkplain #supports supported} element type
     * @param bytes little-endian elements between position and limit (not changed); any byte order, heap or direct
     * @return the elements as floats
     * @throws IllegalArgumentException if {@code dtype} does not widen, or the bytes are not a whole number of
     *                                  elements
     */
    public static float[] widen(DType dtype, ByteBuffer bytes) {
        if (!supports(dtype)) {
            throw new IllegalArgumentException(dtype + " does not widen to float32; widened are "
                    + Float32Widening.supportedNames());
        }
        int size = dtype.byteSize();
        if (bytes.remaining() % size != 0) {
            throw new IllegalArgumentException(bytes.remaining() + " bytes are not a whole number of " + dtype
                    + " elements");
        }
        float[] out = new float[bytes.remaining() / size];
        Float32Widening.widen(dtype, bytes, out, 0);
        return out;
    }
}
