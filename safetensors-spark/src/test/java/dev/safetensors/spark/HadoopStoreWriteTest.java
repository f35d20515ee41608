package dev.safetensors.spark;

import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/**
 * The store write on a Hadoop filesystem no backend of the library serves ({@code testfs:}, the local disk through
 * {@link TestSchemeFileSystem}, configured as a user configures a connector: {@code fs.testfs.impl} on the session's
 * Hadoop configuration): tasks upload through {@link HadoopObjectWriter}, the commit lists and reads back through
 * {@link HadoopSourceProvider}. What the prefix holds is read from the disk itself, so a temporary file
 * ({@code .NAME.UUID.tmp}) or a Hadoop {@code .crc} file left behind would show.
 */
class HadoopStoreWriteTest extends AbstractStoreWriteTest {
    private static Path root;

    @BeforeAll
    static void configure() throws IOException {
        spark.sparkContext().hadoopConfiguration().set("fs." + TestSchemeFileSystem.SCHEME + ".impl",
                TestSchemeFileSystem.class.getName());
        root = Files.createDirectories(dir.resolve("hadoop-outputs"));
    }

    @Override
    protected String output(String name) {
        // no authority, as hdfs:///out/ names a folder of the default filesystem
        return TestSchemeFileSystem.SCHEME + "://" + root.resolve(name) + "/";
    }

    /** What the disk holds below the output folder: every file, hidden ones included. */
    @Override
    protected Set<String> names(String output) throws IOException {
        Path folder = root.resolve(output.substring(output.lastIndexOf('/', output.length() - 2) + 1,
                output.length() - 1));
        Set<String> names = new TreeSet<>();
        try (var files = Files.walk(folder)) {
            files.filter(Files::isRegularFile).forEach(f -> names.add(folder.relativize(f).toString()));
        }
        return names;
    }
}
