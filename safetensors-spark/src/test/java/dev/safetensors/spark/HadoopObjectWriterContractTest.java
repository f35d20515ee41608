package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.AbstractObjectWriterContractTest;
import dev.safetensors.fixtures.FixedListing;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write contract on a Hadoop filesystem that no backend of the library serves, {@code testfs:} (the local disk
 * through {@link TestSchemeFileSystem}, a {@code RawLocalFileSystem}), and what a filesystem with folders adds.
 *
 * <p>The configuration is one without Hadoop's defaults, so that {@code ftp://}, which core-default.xml maps to
 * Hadoop's FTP filesystem and this writer would then claim, is the "another storage" the contract expects.
 *
 * <p>What the filesystem showed: {@code RawLocalFileSystem.rename} replaces an existing destination silently (it is
 * {@code File.renameTo}), where HDFS's returns {@code false}; so an object that appears during the upload is refused
 * here by the writer's check just before the rename, which this test's race (the object written between create and
 * commit) exercises. {@code testfs:} has no {@code AbstractFileSystem}, so an overwrite takes the delete-then-rename
 * path. Temporary files are listed like any file, so a dead writer's are found and removed by
 * {@code abortIncomplete}.
 */
class HadoopObjectWriterContractTest extends AbstractObjectWriterContractTest {
    private static final Configuration CONF = testfs();

    private final AtomicInteger prefixes = new AtomicInteger();

    @TempDir
    Path dir;

    static Configuration testfs() {
        Configuration conf = new Configuration(false);
        conf.set("fs." + TestSchemeFileSystem.SCHEME + ".impl", TestSchemeFileSystem.class.getName());
        return conf;
    }

    @Override
    protected ObjectWriterProvider newWriter() {
        return new HadoopObjectWriter(CONF);
    }

    @Override
    protected RandomAccessSourceProvider readProvider() {
        return new TestfsReader();
    }

    @Override
    protected Location newPrefix() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("prefix-" + prefixes.incrementAndGet()));
        // as Hadoop names what it lists, with the filesystem's empty authority: testfs:///path
        return Location.parse(TestSchemeFileSystem.SCHEME + "://" + folder + "/");
    }

    /** A temporary file is listed like any other file: a writer killed mid-upload leaves one to remove. */
    @Override
    protected boolean storeKeepsIncompleteUploads() {
        return true;
    }

    @Test
    void aFolderInTheWayIsRefusedAndNeverDeleted() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("taken/m.safetensors"));
        Location location = testfs(folder);
        StorageException create = assertThrows(StorageException.class,
                () -> writer().create(location, UploadOptions.DEFAULT.withOverwrite(true)));
        assertEquals(ErrorCode.NOT_A_FILE, create.code());
        assertTrue(create.getMessage().contains(location.display()), create.getMessage());
        StorageException delete = assertThrows(StorageException.class, () -> writer().delete(location));
        assertEquals(ErrorCode.NOT_A_FILE, delete.code());
        assertTrue(Files.isDirectory(folder));
    }

    @Test
    void aFolderThatAppearsDuringAnOverwriteIsRefusedAtCommit() throws Exception {
        Path base = Files.createDirectories(dir.resolve("late"));
        Path target = base.resolve("late-folder.bin");
        try (ObjectUpload upload = writer().create(testfs(target), UploadOptions.DEFAULT.withOverwrite(true))) {
            upload.write(ByteBuffer.wrap(new byte[] {1}));
            Files.createDirectories(target);
            StorageException refused = assertThrows(StorageException.class, upload::commit);
            assertEquals(ErrorCode.NOT_A_FILE, refused.code());
        }
        assertTrue(Files.isDirectory(target));
        try (var files = Files.list(base)) {
            assertEquals(List.of("late-folder.bin"), files.map(p -> p.getFileName().toString()).toList(),
                    "the temporary file is gone");
        }
    }

    @Test
    void foldersMadeForAnAbandonedUploadAreRemovedAndThoseOfACommittedOneStay() throws Exception {
        Path base = Files.createDirectories(dir.resolve("base"));
        try (ObjectUpload upload = writer().create(testfs(base.resolve("a/b/x.bin")), UploadOptions.DEFAULT)) {
            upload.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            assertTrue(Files.isDirectory(base.resolve("a/b")));
        }
        assertFalse(Files.exists(base.resolve("a")), "created for the upload, removed with it");
        try (ObjectUpload upload = writer().create(testfs(base.resolve("a/b/x.bin")), UploadOptions.DEFAULT)) {
            upload.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            upload.commit();
        }
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(base.resolve("a/b/x.bin")));
        try (var files = Files.list(base.resolve("a/b"))) {
            assertEquals(1, files.count(), "no temporary file left beside it");
        }
    }

    @Test
    void abortIncompleteLeavesCommittedFilesAndOtherDotFiles() throws Exception {
        Path base = Files.createDirectories(dir.resolve("kept"));
        Files.write(base.resolve(".hidden"), new byte[] {1});
        Files.write(base.resolve(".m.safetensors.not-a-uuid.tmp"), new byte[] {1});
        try (ObjectUpload upload = writer().create(testfs(base.resolve("m.safetensors")), UploadOptions.DEFAULT)) {
            upload.write(ByteBuffer.wrap(new byte[] {1}));
            upload.commit();
        }
        assertEquals(0, writer().abortIncomplete(testfs(base)));
        try (var files = Files.list(base)) {
            assertEquals(3, files.count());
        }
        assertEquals(0, writer().abortIncomplete(testfs(base.resolve("absent"))), "an absent folder has none");
    }

    @Test
    void aFilesystemsRootIsNoFile() {
        StorageException refused = assertThrows(StorageException.class,
                () -> writer().create(Location.parse("testfs:///"), UploadOptions.DEFAULT));
        assertEquals(ErrorCode.INVALID_SOURCE, refused.code());
    }

    @Test
    void aLocationWithoutAFilesystemIsNotClaimed() {
        assertFalse(writer().supports(Location.parse("nofs://host/m.safetensors")));
        assertTrue(writer().supports(Location.parse("testfs:/m.safetensors")));
    }

    private static Location testfs(Path path) {
        return Location.parse(TestSchemeFileSystem.SCHEME + "://" + path);
    }

    /** Reads and lists {@code testfs:} through Hadoop, as the data source does: {@link HadoopSource}. */
    private static final class TestfsReader implements RandomAccessSourceProvider {
        @Override
        public boolean supports(Location location) {
            return location.scheme().equals(TestSchemeFileSystem.SCHEME);
        }

        @Override
        public RandomAccessSource open(Location location) throws IOException {
            return HadoopSource.open(location.requireUri(), CONF);
        }

        @Override
        public Listing list(Location prefix, ListOptions options) throws IOException {
            org.apache.hadoop.fs.Path folder = new org.apache.hadoop.fs.Path(prefix.requireUri());
            FileSystem fs = folder.getFileSystem(CONF);
            List<ListEntry> entries = new ArrayList<>();
            RemoteIterator<LocatedFileStatus> files = fs.listFiles(folder, options.recursive());
            while (files.hasNext()) {
                LocatedFileStatus f = files.next();
                entries.add(ListEntry.file(Location.of(f.getPath().toUri()), f.getLen(), null,
                        Instant.ofEpochMilli(f.getModificationTime())));
            }
            return FixedListing.of(entries);
        }
    }
}
