package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.Float32Narrowing;
import dev.safetensors.core.Float64Narrowing;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Spark array values as little-endian safetensors elements. F16 and BF16 are narrowed by core, round-to-nearest-even
 * once: floats by {@link Float32Narrowing}, doubles (and integers, as doubles) by {@link Float64Narrowing}, never
 * through float32; integers are range-checked
 * ({@link ErrorCode#OVERFLOW}); a float never becomes an integer dtype.
 */
final class ElementEncoding {
    private ElementEncoding() {
    }

    /** @return whether Spark elements of this type can be written as {@code target} */
    static boolean accepts(DataType element, DType target) {
        boolean integral = element instanceof ByteType || element instanceof ShortType
                || element instanceof IntegerType || element instanceof LongType;
        boolean floating = element instanceof FloatType || element instanceof DoubleType;
        return switch (target) {
            case F32, F16, BF16, F64 -> integral || floating;
            case I8, I16, I32, I64, U8, U16, U32 -> integral;
            case BOOL -> element instanceof BooleanType;
            default -> false;
        };
    }

    /** @return the dtype an element type is written as when no {@code dtype} option says otherwise */
    static DType natural(DataType element) {
        if (element instanceof DoubleType) {
            return DType.F64;
        }
        if (element instanceof LongType) {
            return DType.I64;
        }
        if (element instanceof IntegerType) {
            return DType.I32;
        }
        if (element instanceof ShortType) {
            return DType.I16;
        }
        if (element instanceof ByteType) {
            return DType.I8;
        }
        if (element instanceof BooleanType) {
            return DType.BOOL;
        }
        return DType.F32;
    }

    /**
     * Appends the elements of {@code a} to {@code dst} as {@code target}.
     *
     * @param where names the row, for messages
     * @throws InvalidHeaderException {@link ErrorCode#INVALID_TENSOR_ENTRY} for a null element,
     *                                {@link ErrorCode#OVERFLOW} for an integer out of the target's range
     */
    static void encode(ArrayData a, DataType element, DType target, ByteBuffer dst, String where)
            throws InvalidHeaderException {
        int n = a.numElements();
        for (int i = 0; i < n; i++) {
            if (a.isNullAt(i)) {
                throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, where, "element " + i
                        + " is null; a tensor holds no nulls");
            }
        }
        ByteBuffer le = dst.order(ByteOrder.LITTLE_ENDIAN);
        switch (target) {
            case F32 -> Float32Narrowing.narrow(target, floats(a, element), 0, n, le);
            case F16, BF16 -> {
                if (element instanceof FloatType) {
                    Float32Narrowing.narrow(target, a.toFloatArray(), 0, n, le);
                } else {
                    // straight from the double, rounding once (through float32 it would round twice)
                    for (int i = 0; i < n; i++) {
                        le.putShort(Float64Narrowing.narrow(target, element instanceof DoubleType ? a.getDouble(i)
                                : (double) integral(a, element, i)));
                    }
                }
            }
            case F64 -> {
                for (int i = 0; i < n; i++) {
                    le.putDouble(element instanceof FloatType ? a.getFloat(i) : element instanceof DoubleType
                            ? a.getDouble(i) : integral(a, element, i));
                }
            }
            case BOOL -> {
                for (int i = 0; i < n; i++) {
                    le.put((byte) (a.getBoolean(i) ? 1 : 0));
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    putInteger(le, target, integral(a, element, i), where, i);
                }
            }
        }
    }

    private static float[] floats(ArrayData a, DataType element) {
        if (element instanceof FloatType) {
            return a.toFloatArray();
        }
        float[] out = new float[a.numElements()];
        for (int i = 0; i < out.length; i++) {
            out[i] = element instanceof DoubleType ? (float) a.getDouble(i) : (float) integral(a, element, i);
        }
        return out;
    }

    private static long integral(ArrayData a, DataType element, int i) {
        if (element instanceof LongType) {
            return a.getLong(i);
        }
        if (element instanceof IntegerType) {
            return a.getInt(i);
        }
        if (element instanceof ShortType) {
            return a.getShort(i);
        }
        return a.getByte(i);
    }

    private static void putInteger(ByteBuffer le, DType target, long v, String where, int i)
            throws InvalidHeaderException {
        long min = switch (target) {
            case I8 -> Byte.MIN_VALUE;
            case I16 -> Short.MIN_VALUE;
            case I32 -> Integer.MIN_VALUE;
            case U8, U16, U32 -> 0;
            default -> Long.MIN_VALUE;
        };
        long max = switch (target) {
            case I8 -> Byte.MAX_VALUE;
            case I16 -> Short.MAX_VALUE;
            case I32 -> Integer.MAX_VALUE;
            case U8 -> 0xff;
            case U16 -> 0xffff;
            case U32 -> 0xffff_ffffL;
            default -> Long.MAX_VALUE;
        };
        if (v < min || v > max) {
            throw new InvalidHeaderException(ErrorCode.OVERFLOW, where, "element " + i + " is " + v
                    + ", outside the range of " + target);
        }
        switch (target.byteSize()) {
            case 1 -> le.put((byte) v);
            case 2 -> le.putShort((short) v);
            case 4 -> le.putInt((int) v);
            default -> le.putLong(v);
        }
    }
}
