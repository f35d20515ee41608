package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.internal.header.ShapeArithmetic;

import java.util.Arrays;

/**
 * The reader's shape arithmetic for callers that build tensors from numbers they were given (rows of a table, the
 * arguments of a function): the same checks, in the same order and with the same codes, as a header's entry gets,
 * so a shape a writer or a function accepts is exactly one the reader accepts. The element count is folded left to
 * right in signed 64-bit arithmetic as the official crate does, so {@code [2^40, 2^40, 0]} overflows before its
 * zero is reached, in the reader and here alike.
 */
public final class TensorShapes {
    private TensorShapes() {
    }

    /**
     * @param source names the caller's input, for the message
     * @param tensor the tensor's name, or {@code null}
     * @param shape  the dimensions; empty for a scalar
     * @return the number of elements
     * @throws InvalidHeaderException {@link ErrorCode#INVALID_NUMBER} for a negative dimension (a header holds
     *                                none), {@link ErrorCode#OVERFLOW} when the product overflows on the way
     */
    public static long elementCount(String source, String tensor, long[] shape) throws InvalidHeaderException {
        for (long d : shape) {
            if (d < 0) {
                throw new InvalidHeaderException(ErrorCode.INVALID_NUMBER, source, "shape " + Arrays.toString(shape)
                        + " has a negative dimension", tensor, -1);
            }
        }
        long count = ShapeArithmetic.elementCount(shape);
        if (count < 0) {
            throw new InvalidHeaderException(ErrorCode.OVERFLOW, source, "the element count of shape "
                    + Arrays.toString(shape) + " overflows a signed 64-bit integer", tensor, -1);
        }
        return count;
    }

    /**
     * @param source names the caller's input, for the message
     * @param tensor the tensor's name, or {@code null}
     * @param dtype  the element type
     * @param shape  the dimensions; empty for a scalar
     * @return the tensor's length in bytes
     * @throws InvalidHeaderException as {@link #elementCount}, {@link ErrorCode#OVERFLOW} when the size in bits
     *                                overflows, {@link ErrorCode#MISALIGNED} when sub-byte elements leave a part byte
     */
    public static long byteLength(String source, String tensor, DType dtype, long[] shape)
            throws InvalidHeaderException {
        long count = elementCount(source, tensor, shape);
        long bits = ShapeArithmetic.multiply(count, dtype.bits());
        if (bits < 0) {
            throw new InvalidHeaderException(ErrorCode.OVERFLOW, source, "the size in bits of " + count + " "
                    + dtype + " elements overflows a signed 64-bit integer", tensor, -1);
        }
        if (bits % 8 != 0) {
            throw new InvalidHeaderException(ErrorCode.MISALIGNED, source, count + " elements of " + dtype + " are "
                    + bits + " bits, not a whole number of bytes", tensor, -1);
        }
        return bits / 8;
    }
}
