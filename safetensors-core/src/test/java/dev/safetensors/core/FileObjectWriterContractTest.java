package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.AbstractObjectWriterContractTest;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write contract for local files, and what only a local disk has: folders in the way, folders created for an
 * object and removed again when its upload is abandoned.
 */
class FileObjectWriterContractTest extends AbstractObjectWriterContractTest {
    private final AtomicInteger prefixes = new AtomicInteger();

    @TempDir
    Path dir;

    @Override
    protected ObjectWriterProvider newWriter() {
        return new FileObjectWriter();
    }

    @Override
    protected RandomAccessSourceProvider readProvider() {
        return new FileSourceProvider();
    }

    @Override
    protected Location newPrefix() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("prefix-" + prefixes.incrementAndGet()));
        // a plain path, as the folder's listing names its files
        return Location.parse(folder + "/");
    }

    @Test
    void aFolderInTheWayIsRefusedAndNeverDeleted() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("taken/m.safetensors"));
        Location location = Location.parse(folder.toString());
        StorageException create = assertThrows(StorageException.class,
                () -> writer().create(location, UploadOptions.DEFAULT.withOverwrite(true)));
        assertEquals(ErrorCode.NOT_A_FILE, create.code());
        StorageException delete = assertThrows(StorageException.class, () -> writer().delete(location));
        assertEquals(ErrorCode.NOT_A_FILE, delete.code());
        assertTrue(Files.isDirectory(folder));
    }

    @Test
    void aFifoIsNeverDeletedAndALinkIsDeletedWithoutItsTarget() throws Exception {
        Path fifo = Fifo.create(dir.resolve("pipe"));
        StorageException refused = assertThrows(StorageException.class,
                () -> writer().delete(Location.parse(fifo.toString())));
        assertEquals(ErrorCode.NOT_A_FILE, refused.code());
        assertTrue(Files.exists(fifo, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        Path target = Files.write(dir.resolve("target.bin"), new byte[] {1});
        Path link = Files.createSymbolicLink(dir.resolve("link.bin"), target);
        writer().delete(Location.parse(link.toString()));
        assertFalse(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertTrue(Files.exists(target), "the link's target stays");
    }

    @Test
    void foldersMadeForAnAbandonedUploadAreRemovedAndThoseOfACommittedOneStay() throws Exception {
        Path base = Files.createDirectories(dir.resolve("base"));
        try (ObjectUpload upload = writer().create(Location.parse(base.resolve("a/b/x.bin").toString()),
                UploadOptions.DEFAULT)) {
            upload.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            assertTrue(Files.isDirectory(base.resolve("a/b")));
        }
        assertFalse(Files.exists(base.resolve("a")), "created for the upload, removed with it");
        try (ObjectUpload upload = writer().create(Location.parse(base.resolve("a/b/x.bin").toString()),
                UploadOptions.DEFAULT)) {
            upload.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            upload.commit();
        }
        assertEquals(3, Files.size(base.resolve("a/b/x.bin")));
        try (var files = Files.list(base.resolve("a/b"))) {
            assertEquals(1, files.count(), "no temporary file left beside it");
        }
    }

    @Test
    void aRemoteLocationIsNotLocal() {
        assertFalse(writer().supports(Location.parse("s3://bucket/m.safetensors")));
        assertInstanceOf(dev.safetensors.InvalidLocationException.class, assertThrows(Exception.class,
                () -> writer().create(Location.parse("s3://bucket/m.safetensors"), UploadOptions.DEFAULT)));
    }
}
