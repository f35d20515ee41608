package dev.safetensors.examples;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Writes a small checkpoint with {@link SafetensorsWriter} (an F32 tensor from a {@code float[]}, a BF16 tensor and
 * an I64 tensor from little-endian bytes, and metadata), then reads it back.
 *
 * <pre>java ... dev.safetensors.examples.WriteCheckpoint [output]   (default: a temporary file)</pre>
 */
public final class WriteCheckpoint {
    private WriteCheckpoint() {
    }

    /**
     * @param args optionally the output path
     * @throws IOException if the file cannot be written, or the checkpoint would break a rule (it is checked by the
     *                     validator before anything is written)
     */
    public static void main(String[] args) throws IOException {
        Path output = args.length > 0 ? Path.of(args[0]) : Files.createTempFile("checkpoint-", ".safetensors");
        float[] weight = {0.1f, -0.2f, 0.3f, -0.4f, 0.5f, -0.6f};

        // Tensors other than F32 are given as little-endian bytes; here BF16, rounded from the same floats.
        ByteBuffer weightBf16 = ByteBuffer.allocate(2 * weight.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float w : weight) {
            weightBf16.putShort(toBf16(w));
        }
        ByteBuffer steps = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1000L);

        long bytes = SafetensorsWriter.create()
                .metadata("format", "pt")
                .metadata("written_by", WriteCheckpoint.class.getSimpleName())
                .tensor("linear.weight", new long[] {2, 3}, weight)
                .tensor("linear.weight_bf16", DType.BF16, new long[] {2, 3}, weightBf16.flip())
                .tensor("global_step", DType.I64, new long[] {}, steps)
                .writeTo(output);   // atomically: a temporary file in the same folder, then a move
        System.out.println("wrote " + bytes + " bytes to " + output);

        try (SafetensorsFile st = SafetensorsFile.open(output)) {
            System.out.println(st.header());
            System.out.println("linear.weight_bf16 -> " + Arrays.toString(st.readFloat32("linear.weight_bf16")));
            System.out.println("global_step -> " + st.readBytes("global_step").getLong());
        }
    }

    /** Rounds a finite float to the nearest bfloat16, ties to even (NaN handling left out for brevity). */
    private static short toBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }
}
