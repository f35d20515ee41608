package dev.safetensors.core;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

/** The storage contract, for local files. */
class FileSourceContractTest extends AbstractRandomAccessSourceContractTest {
    @TempDir
    Path dir;
    private int n;

    @Override
    protected RandomAccessSource open(byte[] content) throws Exception {
        Path file = dir.resolve("object-" + n++);
        Files.write(file, content);
        return FileSource.open(file);
    }
}
