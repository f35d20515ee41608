package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.SafetensorsException;
import dev.safetensors.StorageException;
import dev.safetensors.core.internal.write.TempFileJanitor;
import dev.safetensors.spi.AbstractObjectUpload;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Writes local locations (paths and {@code file:} URIs) as {@link AtomicFile}s: the bytes go to a temporary file
 * beside the target and are renamed over it on commit, so a reader sees the old file or the whole new one. Missing
 * folders are created, as an object store needs none, and removed again when the upload is abandoned. Local files
 * report no store checksum. Registered through {@link java.util.ServiceLoader}; thread-safe.
 */
public final class FileObjectWriter implements ObjectWriterProvider {

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public FileObjectWriter() {
    }

    /** @return whether the location is local: a plain path or a {@code file:} URI */
    @Override
    public boolean supports(Location location) {
        return location.isLocal();
    }

    /**
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} for an existing file not to be replaced,
     *                     {@link ErrorCode#NOT_A_FILE} for a folder, FIFO or device in the way,
     *                     {@link ErrorCode#WRITE_FAILED} for a folder that cannot be created or written,
     *                     {@link ErrorCode#INVALID_SOURCE} for a location that is not local
     */
    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        Path path = FileSourceProvider.localPath(object, "not a local file");
        Path parent = path.toAbsolutePath().getParent();
        List<Path> created = parent == null ? List.of() : OutputFolder.create(parent);
        try {
            return new FileUpload(object, AtomicFile.create(path, options.overwrite(), TempFileJanitor.JVM), created);
        } catch (IOException e) {
            OutputFolder.removeIfEmpty(created);
            throw coded(object, e);
        }
    }

    /** @return a coded refusal as it is, any other failure as {@link ErrorCode#WRITE_FAILED} naming the object */
    private static IOException coded(Location object, IOException e) {
        return e instanceof SafetensorsException ? e : BlockCopy.writeFailed(object.display(), e);
    }

    /**
     * Deletes a regular file, or a symbolic link (the link, never what it points to).
     *
     * @throws IOException {@link ErrorCode#NOT_A_FILE} for a folder, FIFO, socket or device, left as it is;
     *                     {@link ErrorCode#WRITE_FAILED} if the delete fails
     */
    @Override
    public void delete(Location object) throws IOException {
        Path path = FileSourceProvider.localPath(object, "not a local file");
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)
                && !Files.isSymbolicLink(path)) {
            throw new StorageException(ErrorCode.NOT_A_FILE, object.display(), Files.isDirectory(path,
                    LinkOption.NOFOLLOW_LINKS) ? "is a directory: only files are deleted"
                    : "is not a regular file (a FIFO, socket or device): only files are deleted");
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw BlockCopy.writeFailed(object.display(), e);
        }
    }

    /** One file being written: the temporary file's channel, renamed on commit. */
    private static final class FileUpload extends AbstractObjectUpload {
        private final Location location;
        private final AtomicFile file;
        private final List<Path> created;

        FileUpload(Location location, AtomicFile file, List<Path> created) {
            this.location = location;
            this.file = file;
            this.created = created;
        }

        @Override
        protected void append(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                file.channel().write(src);
            }
        }

        @Override
        protected WrittenObject publish() throws IOException {
            file.commit();
            return new WrittenObject(location, written(), Optional.empty());
        }

        /** Deletes the temporary file (a failed commit already did) and the folders made for it. */
        @Override
        protected void discard() throws IOException {
            try {
                file.close();
            } finally {
                OutputFolder.removeIfEmpty(created);
            }
        }

        @Override
        protected IOException coded(IOException failure) {
            return FileObjectWriter.coded(location, failure);
        }
    }
}
