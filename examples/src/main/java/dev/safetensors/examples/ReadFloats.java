package dev.safetensors.examples;

import dev.safetensors.DType;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.SafetensorsFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads F32, F16 and BF16 tensors as {@code float[]} (widened exactly) and prints a summary of each.
 *
 * <pre>java ... dev.safetensors.examples.ReadFloats [file [tensor]]
 *     (defaults: the sample checkpoint, every tensor that can be read as floats)</pre>
 */
public final class ReadFloats {
    private ReadFloats() {
    }

    /**
     * @param args optionally the file and one tensor name
     * @throws IOException if the file cannot be read, the tensor does not exist, or it is not F32, F16 or BF16
     *                     (NOT_FLOAT_READABLE)
     */
    public static void main(String[] args) throws IOException {
        try (SafetensorsFile st = SafetensorsFile.open(SampleData.fileArgument(args, 0))) {
            for (TensorInfo t : st.header().tensors()) {
                boolean asked = args.length > 1 && args[1].equals(t.name());
                boolean floating = t.dtype() == DType.F32 || t.dtype() == DType.F16 || t.dtype() == DType.BF16;
                if (asked || (args.length <= 1 && floating)) {
                    // the element count is checked against Limits.maxFloat32Elements before the array is allocated
                    float[] values = st.readFloat32(t.name());
                    System.out.println(t.name() + " " + t.dtype() + Arrays.toString(t.shape()) + " -> "
                            + summary(values));
                }
            }
        }
    }

    private static String summary(float[] values) {
        double sum = 0;
        for (float v : values) {
            sum += v;
        }
        float[] head = Arrays.copyOf(values, Math.min(values.length, 6));
        return values.length + " floats, sum " + sum + ", first " + Arrays.toString(head);
    }
}
