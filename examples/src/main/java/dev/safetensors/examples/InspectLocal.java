package dev.safetensors.examples;

import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Safetensors;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * Checks a local {@code .safetensors} file and lists what it claims to contain, reading only its header.
 *
 * <pre>java ... dev.safetensors.examples.InspectLocal [file]   (default: examples/data/sample.safetensors)</pre>
 */
public final class InspectLocal {
    private InspectLocal() {
    }

    /**
     * @param args optionally the file to inspect
     * @throws IOException if the file cannot be read or breaks a rule; the message names the rule
     */
    public static void main(String[] args) throws IOException {
        Path file = SampleData.fileArgument(args, 0);
        // One bounded read of the file's start, then strict validation; a broken file throws here with an ErrorCode.
        SafetensorsHeader header = Safetensors.readHeader(file);

        System.out.println(header);
        for (Map.Entry<String, String> m : header.metadata().entrySet()) {
            System.out.println("  metadata " + m.getKey() + " = " + m.getValue());
        }
        // tensors() is in data order: the order of their bytes in the file
        for (TensorInfo t : header.tensors()) {
            System.out.printf("  %-24s %-5s %-10s %8d bytes at payload offset %d%n",
                    t.name(), t.dtype(), Arrays.toString(t.shape()), t.byteLength(), t.begin());
        }
    }
}
