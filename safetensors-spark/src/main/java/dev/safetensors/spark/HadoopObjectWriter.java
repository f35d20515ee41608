package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractObjectUpload;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Writes the locations this module reads through Hadoop's {@link FileSystem} ({@code hdfs://}, and any scheme the
 * user configured that none of the library's backends serve): the bytes go to a temporary file beside the target,
 * {@code .NAME.<uuid>.tmp}, created without overwrite, and are renamed into place on commit, so readers see the old
 * file or the whole new one.
 *
 * <ul>
 *   <li><b>Without overwrite</b>, an existing target is refused before anything is written and again just before
 *       the rename; the rename itself is {@link FileSystem#rename}, which on HDFS fails when the destination
 *       exists, so a file that appears between that check and the rename is refused there too. Filesystems whose
 *       rename replaces the destination (the local one, under another scheme) are guarded by the check only, and
 *       on every filesystem a folder that appears in that window takes the file inside it, as
 *       {@link FileSystem#rename} moves into an existing folder.</li>
 *   <li><b>With overwrite</b>, the rename is {@link FileContext#rename} with {@link Options.Rename#OVERWRITE},
 *       atomic on HDFS. A scheme with no {@code fs.AbstractFileSystem.SCHEME.impl}, whose {@link FileContext}
 *       cannot be had, deletes the old file and then renames: not atomic, as a reader between the two finds
 *       none.</li>
 *   <li>Missing parent folders are created, and removed again (those still empty) when the upload is
 *       abandoned.</li>
 *   <li>{@link WrittenObject#checksum()} is empty: HDFS's file checksum is an MD5 of the MD5s of per-chunk CRC32s,
 *       which depends on the block and chunk sizes the file was written with and is comparable with no checksum
 *       of the bytes that a writer computes.</li>
 *   <li>A writer killed mid-upload leaves its temporary file, which the filesystem lists:
 *       {@link #abortIncomplete} deletes them.</li>
 * </ul>
 *
 * <p>Filesystems come from Hadoop's cache ({@link FileSystem#get}), and a {@link FileContext} is kept per
 * filesystem root, as that cache keeps them: both follow the configuration they were first made with. Registered
 * through {@link java.util.ServiceLoader}; thread-safe.
 */
public final class HadoopObjectWriter implements ObjectWriterProvider {
    /** The temporary files {@link #create} names, and only those: a dot, the target's name, a UUID, {@code .tmp}. */
    private static final Pattern TEMPORARY = Pattern.compile(
            "\\.(.+)\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp");

    private final Supplier<Configuration> conf;
    /** A filesystem root's {@link FileContext}, or empty where its scheme has none. */
    private final java.util.concurrent.ConcurrentMap<URI, Optional<FileContext>> contexts =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Creates the writer over the configuration this module reads with: the driver's, once a scan or write
     * installed it, else Hadoop's defaults. {@link java.util.ServiceLoader} calls this.
     */
    public HadoopObjectWriter() {
        this.conf = HadoopFiles::conf;
    }

    /** @param conf the configuration that names the filesystems' implementations and credentials */
    public HadoopObjectWriter(Configuration conf) {
        java.util.Objects.requireNonNull(conf, "conf");
        this.conf = () -> conf;
    }

    /**
     * @return whether the location is one this module reads through Hadoop and Hadoop has a filesystem for its
     *         scheme: never a scheme of the library's own writers ({@code file:}, {@code s3://}, {@code gs://},
     *         ...), and not a scheme nobody configured, so that the registry reports it as unwritable
     */
    @Override
    public boolean supports(Location location) {
        return HadoopFiles.hasFileSystem(location, conf.get());
    }

    /**
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} for an existing file not to be replaced,
     *                     {@link ErrorCode#NOT_A_FILE} for a folder in the way, {@link ErrorCode#INVALID_SOURCE}
     *                     for a location that is not a URI, {@link ErrorCode#WRITE_FAILED} otherwise
     */
    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        Path target = path(object);
        Path parent = target.getParent();
        if (parent == null) {
            throw new StorageException(ErrorCode.INVALID_SOURCE, object.display(), "names a filesystem's root, not a"
                    + " file");
        }
        List<Path> created = List.of();
        try {
            FileSystem fs = target.getFileSystem(conf.get());
            refuseExisting(fs, target, object, options.overwrite());
            created = createFolders(fs, parent);
            Path temporary = new Path(parent, "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
            FSDataOutputStream out = fs.create(temporary, false);
            return new HadoopUpload(object, fs, target, temporary, out, options.overwrite(), created);
        } catch (IOException | RuntimeException e) {
            IOException failure = coded(object, e);
            try {
                removeIfEmpty(target, created);
            } catch (IOException | RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    /**
     * Deletes a file; an absent one succeeds.
     *
     * @throws IOException {@link ErrorCode#NOT_A_FILE} for a folder, left as it is; {@link ErrorCode#WRITE_FAILED}
     *                     if the delete fails
     */
    @Override
    public void delete(Location object) throws IOException {
        Path path = path(object);
        try {
            FileSystem fs = path.getFileSystem(conf.get());
            FileStatus status = status(fs, path);
            if (status == null) {
                return;
            }
            if (status.isDirectory()) {
                throw notAFile(object);
            }
            // false when it went meanwhile: what was asked
            fs.delete(path, false);
        } catch (IOException | RuntimeException e) {
            throw coded(object, e);
        }
    }

    /**
     * Deletes, below the prefix and its subfolders, every temporary file named as this writer names them whose target
     * {@code objects} accepts: what uploads left when their process was killed, and any upload still running there.
     *
     * @param prefix  the folder
     * @param objects which targets' temporary files to delete
     * @return how many were deleted
     * @throws IOException {@link ErrorCode#WRITE_FAILED} if the listing or a delete fails
     */
    @Override
    public int abortIncomplete(Location prefix, java.util.function.Predicate<Location> objects) throws IOException {
        Path folder = path(prefix);
        int removed = 0;
        try {
            FileSystem fs = folder.getFileSystem(conf.get());
            if (status(fs, folder) == null) {
                return 0;
            }
            RemoteIterator<LocatedFileStatus> files = fs.listFiles(folder, true);
            while (files.hasNext()) {
                Path file = files.next().getPath();
                java.util.regex.Matcher temporary = TEMPORARY.matcher(file.getName());
                if (temporary.matches()
                        && objects.test(Location.of(new Path(file.getParent(), temporary.group(1)).toUri()))
                        && fs.delete(file, false)) {
                    removed++;
                }
            }
        } catch (IOException | RuntimeException e) {
            throw coded(prefix, e);
        }
        return removed;
    }

    private static Path path(Location object) throws IOException {
        try {
            return new Path(object.requireUri());
        } catch (IllegalArgumentException e) {
            throw new StorageException(ErrorCode.INVALID_SOURCE, object.display(), "not a Hadoop path: "
                    + e.getMessage(), e);
        }
    }

    /** Refuses a folder always, and a file unless it may be replaced. */
    private static void refuseExisting(FileSystem fs, Path target, Location object, boolean overwrite)
            throws IOException {
        FileStatus status = status(fs, target);
        if (status == null) {
            return;
        }
        if (status.isDirectory()) {
            throw notAFile(object);
        }
        if (!overwrite) {
            throw alreadyExists(object);
        }
    }

    /** @return the path's status, or {@code null} if it does not exist */
    private static FileStatus status(FileSystem fs, Path path) throws IOException {
        try {
            return fs.getFileStatus(path);
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    /** @return the folders made, the deepest first: those missing from {@code folder} up */
    private static List<Path> createFolders(FileSystem fs, Path folder) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = folder; p != null && !fs.exists(p); p = p.getParent()) {
            missing.add(p);
        }
        if (!missing.isEmpty() && !fs.mkdirs(folder)) {
            throw new IOException("cannot create the folder " + folder.toUri().getPath());
        }
        return missing;
    }

    /**
     * Removes the folders an upload made, the deepest first, while they are empty: one that another writer put a
     * file in meanwhile stays, and so do those above it.
     */
    private void removeIfEmpty(Path target, List<Path> created) throws IOException {
        if (created.isEmpty()) {
            return;
        }
        FileSystem fs = target.getFileSystem(conf.get());
        for (Path folder : created) {
            FileStatus[] entries;
            try {
                entries = fs.listStatus(folder);
            } catch (FileNotFoundException e) {
                continue;
            }
            if (entries.length > 0) {
                return;
            }
            try {
                fs.delete(folder, false);
            } catch (IOException e) {
                // not empty after all: another writer's file arrived between the listing and the delete
                return;
            }
        }
    }

    /** @return the {@link FileContext} of the filesystem, or empty if its scheme has none */
    private Optional<FileContext> context(FileSystem fs) {
        return contexts.computeIfAbsent(fs.getUri(), root -> {
            try {
                return Optional.of(FileContext.getFileContext(root, conf.get()));
            } catch (IOException | RuntimeException e) {
                // UnsupportedFileSystemException: no fs.AbstractFileSystem.SCHEME.impl for this scheme
                return Optional.empty();
            }
        });
    }

    private static StorageException alreadyExists(Location object) {
        return new StorageException(ErrorCode.ALREADY_EXISTS, object.display(), "already exists; pass overwrite"
                + " to replace it");
    }

    private static StorageException notAFile(Location object) {
        return new StorageException(ErrorCode.NOT_A_FILE, object.display(), "is a folder: only files are written"
                + " and deleted");
    }

    /** @return a coded failure as it is, any other as {@link ErrorCode#WRITE_FAILED} naming the object */
    private static IOException coded(Location object, Exception e) {
        if (e instanceof IOException io && e instanceof ErrorCoded) {
            return io;
        }
        String reason = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        return new StorageException(ErrorCode.WRITE_FAILED, object.display(), "the Hadoop filesystem failed: "
                + dev.safetensors.spi.SourceNames.clip(reason), e);
    }

    /** One file being written: the temporary file's stream, renamed into place on commit. */
    private final class HadoopUpload extends AbstractObjectUpload {
        private final Location location;
        private final FileSystem fs;
        private final Path target;
        private final Path temporary;
        private final FSDataOutputStream out;
        private final boolean overwrite;
        private final List<Path> created;
        /** Reused for buffers without an array, so that a direct buffer costs no allocation per write. */
        private byte[] copy;

        HadoopUpload(Location location, FileSystem fs, Path target, Path temporary, FSDataOutputStream out,
                     boolean overwrite, List<Path> created) {
            this.location = location;
            this.fs = fs;
            this.target = target;
            this.temporary = temporary;
            this.out = out;
            this.overwrite = overwrite;
            this.created = created;
        }

        @Override
        protected void append(ByteBuffer src) throws IOException {
            try {
                writeOut(src);
            } catch (RuntimeException e) {
                // the base class passes unchecked failures through; a Hadoop client's are coded here instead
                throw HadoopObjectWriter.coded(location, e);
            }
        }

        private void writeOut(ByteBuffer src) throws IOException {
            if (src.hasArray()) {
                out.write(src.array(), src.arrayOffset() + src.position(), src.remaining());
                src.position(src.limit());
                return;
            }
            if (copy == null) {
                copy = new byte[64 << 10];
            }
            while (src.hasRemaining()) {
                int n = Math.min(copy.length, src.remaining());
                src.get(copy, 0, n);
                out.write(copy, 0, n);
            }
        }

        @Override
        protected WrittenObject publish() throws IOException {
            try {
                out.close();
                refuseExisting(fs, target, location, overwrite);
                if (overwrite) {
                    replace();
                } else {
                    rename();
                }
            } catch (RuntimeException e) {
                throw HadoopObjectWriter.coded(location, e);
            }
            return new WrittenObject(location, written(), Optional.empty());
        }

        /** Renames into place unless the target appeared, which HDFS's rename itself refuses. */
        private void rename() throws IOException {
            if (!fs.rename(temporary, target)) {
                // HDFS answers false, not an exception, for a destination that exists
                if (fs.exists(target)) {
                    throw alreadyExists(location);
                }
                throw new IOException("the rename of the temporary file into place failed");
            }
        }

        /** Renames over the target: atomically through the {@link FileContext}, else delete then rename. */
        private void replace() throws IOException {
            Optional<FileContext> context = context(fs);
            if (context.isPresent()) {
                context.get().rename(temporary, target, Options.Rename.OVERWRITE);
                return;
            }
            fs.delete(target, false);
            if (!fs.rename(temporary, target)) {
                throw new IOException("the rename of the temporary file into place failed");
            }
        }

        /** Deletes the temporary file (absent if a dead writer's cleanup took it) and the folders made for it. */
        @Override
        protected void discard() throws IOException {
            try {
                out.close();
            } catch (IOException | RuntimeException e) {
                // a stream that cannot flush what it holds: its file is deleted below all the same
            }
            try {
                fs.delete(temporary, false);
                removeIfEmpty(target, created);
            } catch (IOException | RuntimeException e) {
                throw HadoopObjectWriter.coded(location, e);
            }
        }

        @Override
        protected IOException coded(IOException failure) {
            return HadoopObjectWriter.coded(location, failure);
        }
    }
}
