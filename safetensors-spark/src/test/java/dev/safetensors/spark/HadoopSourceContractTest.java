package dev.safetensors.spark;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The source contract for a file of a Hadoop filesystem no backend of the library serves, {@code testfs:} (the
 * local disk through {@link TestSchemeFileSystem}), opened by {@link HadoopSourceProvider}: exact ranges, the size
 * from the file's status, positioned reads from several threads.
 */
class HadoopSourceContractTest extends AbstractRandomAccessSourceContractTest {
    private final AtomicInteger files = new AtomicInteger();

    @TempDir
    Path dir;

    @Override
    protected RandomAccessSource open(byte[] content) throws Exception {
        Path file = Files.write(dir.resolve("object-" + files.incrementAndGet()), content);
        return new HadoopSourceProvider(HadoopObjectWriterContractTest.testfs())
                .open(Location.parse(TestSchemeFileSystem.SCHEME + "://" + file));
    }
}
