package dev.safetensors.examples;

import dev.safetensors.core.Safetensors;

import java.io.IOException;
import java.nio.file.Path;

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
        HeaderListing.print(Safetensors.readHeader(file));
    }
}
