package dev.safetensors.examples;

import dev.safetensors.TensorInfo;
import dev.safetensors.core.SafetensorsFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Maps a tensor of a local file into memory and reads it in place: no copy, no heap, only the operating system's page
 * cache. The view is a read-only, little-endian {@link ByteBuffer}; an F32 tensor reads as floats through
 * {@link ByteBuffer#asFloatBuffer()}.
 *
 * <pre>java ... dev.safetensors.examples.MapTensor [FILE] [TENSOR]</pre>
 *
 * <p>Without arguments it maps {@code embed.weight} of the sample checkpoint.
 */
public final class MapTensor {
    private MapTensor() {
    }

    /**
     * @param args optionally the file and the tensor (an F32 tensor prints its first values)
     * @throws IOException if the file cannot be read, breaks a rule, or lacks the tensor (TENSOR_NOT_FOUND)
     */
    public static void main(String[] args) throws IOException {
        Path path = SampleData.fileArgument(args, 0);
        String name = args.length > 1 ? args[1] : "embed.weight";
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            TensorInfo t = file.header().tensor(name).orElseThrow(() -> new IllegalArgumentException(
                    "no tensor " + name + " in " + path));
            ByteBuffer view = file.map(name);
            System.out.println(name + " " + t.dtype() + Arrays.toString(t.shape()) + " mapped: " + view.remaining()
                    + " bytes, " + (view.isDirect() ? "direct" : "heap") + (view.isReadOnly() ? ", read-only" : "")
                    + ", " + view.order());
            if (t.dtype().name().equals("F32")) {
                FloatBuffer floats = view.asFloatBuffer();
                float[] first = new float[Math.min(6, floats.remaining())];
                floats.get(first);
                System.out.println("  first values " + Arrays.toString(first));
            }
        }
    }
}
