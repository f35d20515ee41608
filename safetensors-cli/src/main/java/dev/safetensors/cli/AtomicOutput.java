package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * An output file that appears whole or not at all: bytes go to a new temporary file beside the target (so the final
 * rename stays on one file system), which is renamed over the target only by {@link #commit()}; on any failure, on
 * {@link #close()} without a commit, and on JVM shutdown, the temporary file is removed and an existing target is
 * left as it was. A target that is a symbolic link is written through the link (the link stays); an existing
 * target keeps its permissions. A target that is the file being read (the same file key: the same path, a hard or
 * symbolic link to it) is refused before anything is written, as is a directory. Every failure is a
 * {@link StorageException} with {@link ErrorCode#WRITE_FAILED} that names the output.
 */
final class AtomicOutput implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String name;
    private final Path target;
    private final Path temporary;
    private final FileChannel channel;
    private final Sink stream;
    private final Thread cleanup;
    private boolean committed;

    private AtomicOutput(String name, Path target, Path temporary, FileChannel channel) {
        this.name = name;
        this.target = target;
        this.temporary = temporary;
        this.channel = channel;
        this.stream = Sink.of(new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16), name);
        this.cleanup = new Thread(this::discard, "safetensors-output-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    /**
     * @param output the target as the user named it
     * @param source the local file being read, or {@code null} for a remote source
     * @return an open output; write to {@link #stream()}, then {@link #commit()}; always close it
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if the target cannot be written or is the source
     */
    static AtomicOutput create(Path output, Path source) throws StorageException {
        String name = output.toString();
        Path target = throughLinks(output, name);
        if (Files.isDirectory(target)) {
            throw new StorageException(ErrorCode.WRITE_FAILED, name, "is a directory: name the file to write");
        }
        try {
            if (source != null && Files.exists(target) && Files.isSameFile(target, source)) {
                throw new StorageException(ErrorCode.WRITE_FAILED, name, "is the file being read: writing it would"
                        + " destroy the source; name another file");
            }
            Path dir = target.toAbsolutePath().getParent();
            String prefix = "." + target.getFileName() + ".";
            for (int attempt = 0; ; attempt++) {
                Path temporary = dir.resolve(prefix + HexFormat.of().toHexDigits(RANDOM.nextInt()) + ".part");
                try {
                    FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.WRITE);
                    keepPermissions(target, temporary);
                    return new AtomicOutput(name, target, temporary, channel);
                } catch (FileAlreadyExistsException e) {
                    if (attempt == 10) {
                        throw e;
                    }
                }
            }
        } catch (StorageException e) {
            throw e;
        } catch (IOException e) {
            throw Sink.failure(name, e);
        }
    }

    /** The file a symbolic link leads to, so the link survives; the path itself when it is not a link. */
    private static Path throughLinks(Path output, String name) throws StorageException {
        if (!Files.isSymbolicLink(output)) {
            return output;
        }
        try {
            return output.toRealPath();
        } catch (IOException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, name, "is a symbolic link that leads nowhere (or in"
                    + " a loop): fix the link or name a file", e);
        }
    }

    private static void keepPermissions(Path target, Path temporary) throws IOException {
        PosixFileAttributeView from = Files.getFileAttributeView(target, PosixFileAttributeView.class);
        if (from != null && Files.exists(target)) {
            Files.getFileAttributeView(temporary, PosixFileAttributeView.class)
                    .setPermissions(from.readAttributes().permissions());
        }
    }

    /** @return where to write; failures name the output */
    OutputStream stream() {
        return stream;
    }

    /**
     * Makes the written bytes durable and puts them in place of the target.
     *
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if they cannot be; the target is then unchanged
     */
    void commit() throws StorageException {
        try {
            stream.flush();
            channel.force(true);
            channel.close();
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            committed = true;
        } catch (StorageException e) {
            throw e;
        } catch (IOException e) {
            throw Sink.failure(name, e);
        }
    }

    /** Removes the temporary file unless {@link #commit()} moved it into place. */
    @Override
    public void close() {
        discard();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs (or ran) discard() itself
        }
    }

    private synchronized void discard() {
        if (committed) {
            return;
        }
        try {
            channel.close();
            Files.deleteIfExists(temporary);
        } catch (IOException e) {
            // nothing more can be done; the failure that led here is what gets reported
        }
    }
}
