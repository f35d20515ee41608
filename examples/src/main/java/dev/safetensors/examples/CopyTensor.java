package dev.safetensors.examples;

import dev.safetensors.core.SafetensorsFile;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Copies the raw little-endian bytes of one tensor to a file, streamed in 64 KiB blocks, so tensors of any size copy
 * in constant memory (and, from a remote source, in one request).
 *
 * <pre>java ... dev.safetensors.examples.CopyTensor [file [tensor [output]]]
 *     (defaults: the sample checkpoint, its first tensor, a temporary file)</pre>
 */
public final class CopyTensor {
    private CopyTensor() {
    }

    /**
     * @param args optionally the file, the tensor name and the output path
     * @throws IOException if a file cannot be read or written, or the tensor does not exist (TENSOR_NOT_FOUND)
     */
    public static void main(String[] args) throws IOException {
        Path file = SampleData.fileArgument(args, 0);
        try (SafetensorsFile st = SafetensorsFile.open(file)) {
            String tensor = args.length > 1 ? args[1] : st.header().tensors().get(0).name();
            Path output = args.length > 2 ? Path.of(args[2]) : Files.createTempFile("tensor-", ".bin");
            long copied;
            try (OutputStream out = Files.newOutputStream(output)) {
                copied = st.copyTensorTo(tensor, out);
            }
            System.out.println("copied " + copied + " bytes of " + tensor + " to " + output);
        }
    }
}
