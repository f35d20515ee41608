package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.Float32Decoding;
import dev.safetensors.core.TensorShapes;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.BooleanType$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The SQL functions' work: a tensor's little-endian bytes to arrays by dtype and shape, and arrays to bytes in a
 * dtype. Widening is core's ({@link Float32Decoding}); narrowing to F16/BF16 is core's round-to-nearest-even, once,
 * from the double; shapes get the reader's arithmetic ({@link TensorShapes}).
 */
final class TensorFunctions {
    private static final String SOURCE = "safetensors function";

    private TensorFunctions() {
    }

    static float[] decodeFloat(byte[] data, String dtype, long[] shape) throws InvalidHeaderException {
        DType d = dtype(dtype);
        ByteBuffer b = checked(data, d, shape);
        if (Float32Decoding.supports(d)) {
            return Float32Decoding.widen(d, b);
        }
        if (d == DType.F64) {
            float[] out = new float[data.length / 8];
            for (int i = 0; i < out.length; i++) {
                out[i] = (float) b.getDouble(i * 8);
            }
            return out;
        }
        throw new InvalidHeaderException(ErrorCode.NOT_FLOAT_READABLE, SOURCE, d + " is not a float dtype; use"
                + " st_decode_long");
    }

    static double[] decodeDouble(byte[] data, String dtype, long[] shape) throws InvalidHeaderException {
        DType d = dtype(dtype);
        ByteBuffer b = checked(data, d, shape);
        double[] out = new double[(int) (data.length / Math.max(1, d.byteSize()))];
        if (d == DType.F64) {
            b.asDoubleBuffer().get(out);
            return out;
        }
        float[] f = decodeFloat(data, dtype, shape);
        for (int i = 0; i < f.length; i++) {
            out[i] = f[i];
        }
        return out;
    }

    static long[] decodeLong(byte[] data, String dtype, long[] shape) throws InvalidHeaderException {
        DType d = dtype(dtype);
        ByteBuffer b = checked(data, d, shape);
        int size = d.byteSize();
        long[] out = new long[data.length / size];
        for (int i = 0; i < out.length; i++) {
            int at = i * size;
            out[i] = switch (d) {
                case I8 -> b.get(at);
                case U8, BOOL -> b.get(at) & 0xff;
                case I16 -> b.getShort(at);
                case U16 -> b.getShort(at) & 0xffff;
                case I32 -> b.getInt(at);
                case U32 -> b.getInt(at) & 0xffff_ffffL;
                case I64 -> b.getLong(at);
                case U64 -> {
                    long v = b.getLong(at);
                    if (v < 0) {
                        throw new InvalidHeaderException(ErrorCode.OVERFLOW, SOURCE, "U64 element " + i + " is "
                                + Long.toUnsignedString(v) + ", beyond a signed long");
                    }
                    yield v;
                }
                default -> throw new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE, SOURCE, d + " is not an"
                        + " integer dtype; use st_decode_float or st_decode_double");
            };
        }
        return out;
    }

    /**
     * @param values numbers (Float, Double, Integer, Long, Short, Byte) or Booleans, no nulls
     * @return their little-endian bytes as {@code dtype}
     */
    static byte[] encode(Object[] values, String dtype) throws InvalidHeaderException {
        DType d = dtype(dtype);
        Object[] converted = new Object[values.length];
        DataType element = switch (d) {
            case F32 -> DataTypes.FloatType;
            // F16 and BF16 round from the exact double (a float widens to one exactly): one rounding, never two
            case F16, BF16, F64 -> DataTypes.DoubleType;
            case BOOL -> BooleanType$.MODULE$;
            case I8, I16, I32, I64, U8, U16, U32 -> DataTypes.LongType;
            default -> throw new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE, SOURCE, d + " cannot be encoded: F32, F16, BF16, F64,"
                    + " I8-I64, U8-U32 or BOOL");
        };
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            if (v == null) {
                throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, SOURCE, "element " + i
                        + " is null; a tensor holds no nulls");
            }
            boolean integral = v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte;
            if (element == DataTypes.LongType && !integral || element == BooleanType$.MODULE$
                    && !(v instanceof Boolean) || element != BooleanType$.MODULE$ && !(v instanceof Number)) {
                throw new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE, SOURCE, "element " + i + " ("
                        + v.getClass().getSimpleName() + ") cannot be written as " + d);
            }
            converted[i] = element == DataTypes.FloatType ? (Object) ((Number) v).floatValue()
                    : element == DataTypes.DoubleType ? (Object) ((Number) v).doubleValue()
                    : element == DataTypes.LongType ? (Object) ((Number) v).longValue() : v;
        }
        ByteBuffer out = ByteBuffer.allocate(Math.multiplyExact(values.length, d.byteSize()));
        ElementEncoding.encode(new GenericArrayData(converted), element, d, out, SOURCE);
        return out.array();
    }

    private static DType dtype(String name) throws InvalidHeaderException {
        if (name == null) {
            throw new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE, SOURCE, "no dtype given");
        }
        DType d = DType.fromName(name.trim()).orElseThrow(() -> new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE, SOURCE, "unknown dtype " + name));
        if (d.bits() % 8 != 0) {
            throw new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE, SOURCE, d + " packs elements below a byte; not decoded");
        }
        return d;
    }

    private static ByteBuffer checked(byte[] data, DType d, long[] shape) throws InvalidHeaderException {
        if (data.length % d.byteSize() != 0) {
            throw new InvalidHeaderException(ErrorCode.LENGTH_MISMATCH, SOURCE, data.length + " bytes are not a"
                    + " whole number of " + d + " elements");
        }
        if (shape != null) {
            // the reader's arithmetic and codes: a negative dimension, an overflow on the way (even before a zero)
            long length = TensorShapes.byteLength(SOURCE, null, d, shape);
            if (length != data.length) {
                throw new InvalidHeaderException(ErrorCode.LENGTH_MISMATCH, SOURCE, data.length + " bytes do not"
                        + " hold the " + length + " bytes of " + d + java.util.Arrays.toString(shape));
            }
        }
        return ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    }
}
