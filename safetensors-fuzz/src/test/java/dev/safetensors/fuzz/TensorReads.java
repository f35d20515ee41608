package dev.safetensors.fuzz;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fuzz.reference.ReferenceWidening;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * Reads every tensor of an accepted file every way {@link SafetensorsFile} offers and checks the results against
 * the file's bytes: copies and {@code readBytes} give exactly the tensor's range; {@code readFloat32} gives the
 * reference widening bit for bit, or refuses a dtype it cannot widen ({@code NOT_FLOAT_READABLE}) or a tensor above
 * the element cap ({@code TOO_MANY_ELEMENTS}); an unknown name is {@code TENSOR_NOT_FOUND}. Only
 * {@link SafetensorsException}s may escape.
 */
final class TensorReads {
    private TensorReads() {
    }

    /**
     * @param file       the whole file
     * @param accepted   its header as the validator accepted it under {@code limits}
     * @param limits     the policy, with the element cap for {@code readFloat32}
     * @param maxPerRead the most bytes the source hands out per read
     * @param maxPerWrite the most bytes the copy target takes per write
     */
    static void check(byte[] file, SafetensorsHeader accepted, Limits limits, int maxPerRead, int maxPerWrite) {
        try (SafetensorsFile f = SafetensorsFile.open(new MemorySource("fuzz-input", file).maxPerRead(maxPerRead), limits)) {
            require(f.header().tensors().equals(accepted.tensors()), "SafetensorsFile read another header");
            for (TensorInfo t : f.header().tensors()) {
                byte[] expected = Arrays.copyOfRange(file, (int) (accepted.payloadOffset() + t.begin()),
                        (int) (accepted.payloadOffset() + t.end()));
                ByteArrayOutputStream stream = new ByteArrayOutputStream();
                require(f.copyTensorTo(t.name(), stream) == t.byteLength(), "copyTensorTo(stream) count");
                require(Arrays.equals(stream.toByteArray(), expected), "copyTensorTo(stream) bytes of " + t);
                ThrottledChannel channel = new ThrottledChannel(maxPerWrite);
                require(f.copyTensorTo(t.name(), channel) == t.byteLength(), "copyTensorTo(channel) count");
                require(Arrays.equals(channel.toByteArray(), expected), "copyTensorTo(channel) bytes of " + t);
                ByteBuffer read = f.readBytes(t.name());
                require(read.position() == 0 && read.remaining() == expected.length
                        && read.equals(ByteBuffer.wrap(expected)), "readBytes of " + t);
                floats(f, t, expected, limits);
            }
            expectCode(ErrorCode.TENSOR_NOT_FOUND, () -> f.readFloat32("\u0000 no such tensor"));
        } catch (SafetensorsException e) {
            throw new AssertionError("a read of an accepted file failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new AssertionError("a plain IOException for bytes held in memory", e);
        } catch (RuntimeException e) {
            throw new AssertionError(e.getClass().getName() + " escaped a tensor read", e);
        }
    }

    private static void floats(SafetensorsFile f, TensorInfo t, byte[] bytes, Limits limits) throws IOException {
        if (!ReferenceWidening.READABLE.contains(t.dtype().name())) {
            expectCode(ErrorCode.NOT_FLOAT_READABLE, () -> f.readFloat32(t.name()));
            return;
        }
        if (t.elementCount() > limits.maxFloat32Elements()) {
            expectCode(ErrorCode.TOO_MANY_ELEMENTS, () -> f.readFloat32(t.name()));
            return;
        }
        int[] expected = ReferenceWidening.float32Bits(t.dtype().name(), bytes);
        requireBits(f.readFloat32(t.name()), expected, "readFloat32 of " + t);

        // the caller's buffers: a heap buffer whose array starts before it, and a direct one
        FloatBuffer heap = FloatBuffer.wrap(new float[expected.length + 3]).position(3).slice();
        require(f.readFloat32(t.name(), heap) == expected.length, "readFloat32(heap buffer) count");
        float[] fromHeap = new float[expected.length];
        heap.flip().get(fromHeap);
        requireBits(fromHeap, expected, "readFloat32(heap buffer) of " + t);
        FloatBuffer direct = ByteBuffer.allocateDirect(4 * expected.length).asFloatBuffer();
        require(f.readFloat32(t.name(), direct) == expected.length, "readFloat32(direct buffer) count");
        float[] fromDirect = new float[expected.length];
        direct.flip().get(fromDirect);
        requireBits(fromDirect, expected, "readFloat32(direct buffer) of " + t);
    }

    private static void requireBits(float[] actual, int[] expected, String what) {
        require(actual.length == expected.length, what + ": " + actual.length + " values, expected "
                + expected.length);
        for (int i = 0; i < actual.length; i++) {
            int bits = Float.floatToRawIntBits(actual[i]);
            require(bits == expected[i], what + ": element " + i + " is 0x" + Integer.toHexString(bits)
                    + ", expected 0x" + Integer.toHexString(expected[i]));
        }
    }

    /** A read that must fail with exactly this code. */
    private interface Read {
        void run() throws IOException;
    }

    private static void expectCode(ErrorCode code, Read read) throws IOException {
        try {
            read.run();
        } catch (SafetensorsException e) {
            require(e.code() == code, "expected " + code + " but got " + e.getMessage());
            require(code != ErrorCode.NOT_FLOAT_READABLE || e instanceof UnsupportedDtypeException,
                    "NOT_FLOAT_READABLE is not an UnsupportedDtypeException");
            return;
        }
        throw new AssertionError("expected " + code + " but the read succeeded");
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
