package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.AbstractProviderContractTest;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider contract for Hadoop's filesystems on {@code testfs:} ({@link TestSchemeFileSystem}), as installed: the
 * configuration this module reads with ({@link HadoopFiles#use}) names the filesystem, so the installed provider is
 * the one the registry picks for it. Without Hadoop's defaults, so that {@code ftp://}, which core-default.xml maps to
 * Hadoop's FTP filesystem, is another storage here.
 */
class HadoopSourceProviderContractTest extends AbstractProviderContractTest {
    private static Configuration before;
    private final AtomicInteger prefixes = new AtomicInteger();

    @TempDir
    Path dir;

    @BeforeAll
    static void install() {
        before = HadoopFiles.conf();
        HadoopFiles.use(HadoopObjectWriterContractTest.testfs());
    }

    @AfterAll
    static void restore() {
        HadoopFiles.use(before);
    }

    @Override
    protected RandomAccessSourceProvider newProvider() {
        return new HadoopSourceProvider();
    }

    @Override
    protected List<String> supportedLocations() {
        return List.of("testfs:///data/m.safetensors", "testfs://host/data/m.safetensors");
    }

    /** A query, which no Hadoop path holds. */
    @Override
    protected String malformedLocation() {
        return "testfs:///data/m.safetensors?versionId=1";
    }

    @Override
    protected String putUnderFreshPrefix(List<String> names, byte[] content) throws Exception {
        Path folder = Files.createDirectories(dir.resolve("prefix-" + prefixes.incrementAndGet()));
        for (String name : names) {
            Files.write(folder.resolve(name), content);
        }
        return TestSchemeFileSystem.SCHEME + "://" + folder + "/";
    }

    @Test
    void entriesAreNamedBelowThePrefixAsWrittenAndFoldersOneLevelDown() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("tree/a b"));
        Files.write(folder.resolve("x.safetensors"), new byte[] {1, 2});
        Files.write(dir.resolve("tree/y.safetensors"), new byte[] {3});
        String prefix = TestSchemeFileSystem.SCHEME + "://" + dir.resolve("tree") + "/";
        RandomAccessSourceProvider provider = newProvider();
        List<String> flat = new ArrayList<>();
        try (Listing listing = provider.list(Location.parse(prefix), ListOptions.DEFAULT)) {
            while (listing.hasNext()) {
                ListEntry e = listing.next();
                flat.add(e.kind() + " " + e.location().text());
            }
        }
        flat.sort(null);
        assertEquals(List.of("FILE " + prefix + "y.safetensors", "FOLDER " + prefix + "a%20b"), flat);
        List<String> deep = new ArrayList<>();
        try (Listing listing = provider.list(Location.parse(prefix), ListOptions.DEFAULT.withRecursive(true))) {
            while (listing.hasNext()) {
                deep.add(listing.next().location().text());
            }
        }
        deep.sort(null);
        assertEquals(List.of(prefix + "a%20b/x.safetensors", prefix + "y.safetensors"), deep);
        try (RandomAccessSource s = provider.open(Location.parse(deep.get(0)))) {
            assertEquals(2, s.size(), "an entry's name opens it");
        }
    }

    @Test
    void missingFilesAndFoldersAreCoded() throws Exception {
        RandomAccessSourceProvider provider = newProvider();
        String absent = TestSchemeFileSystem.SCHEME + "://" + dir.resolve("absent");
        dev.safetensors.SourceNotFoundException missing = assertThrows(dev.safetensors.SourceNotFoundException.class,
                () -> provider.open(Location.parse(absent + ".safetensors")).close());
        assertEquals(ErrorCode.NOT_FOUND, missing.code());
        dev.safetensors.SourceNotFoundException unlisted = assertThrows(
                dev.safetensors.SourceNotFoundException.class,
                () -> provider.list(Location.parse(absent + "/"), ListOptions.DEFAULT).close());
        assertEquals(ErrorCode.NOT_FOUND, unlisted.code());
        dev.safetensors.StorageException folder = assertThrows(dev.safetensors.StorageException.class,
                () -> provider.open(Location.parse(TestSchemeFileSystem.SCHEME + "://" + dir)).close());
        assertEquals(ErrorCode.NOT_A_FILE, folder.code());
        InvalidLocationException opaque = assertThrows(InvalidLocationException.class,
                () -> provider.open(Location.parse("testfs:m.safetensors")).close());
        assertEquals(ErrorCode.INVALID_SOURCE, opaque.code());
    }

    @Test
    void aNameNeverShowsUserInformation() throws Exception {
        Path file = Files.write(dir.resolve("named.safetensors"), new byte[] {1});
        try (RandomAccessSource s = newProvider().open(Location.parse(TestSchemeFileSystem.SCHEME
                + "://reader:hunter2@localhost" + file))) {
            assertTrue(s.name().startsWith("testfs:"), s.name());
            assertFalse(s.name().contains("hunter2"), s.name());
            assertEquals(1, s.size());
        }
        assertFalse(newProvider().supports(Location.parse("nofs://host/m.safetensors")), "no filesystem for it");
    }
}
