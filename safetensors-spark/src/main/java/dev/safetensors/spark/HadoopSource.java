package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractPositionalSource;
import dev.safetensors.spi.SourceNames;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.AccessControlException;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;

/**
 * A file of any Hadoop {@link FileSystem} (HDFS, ABFS, a connector the user configured) as a
 * {@link RandomAccessSource}: positioned reads ({@link FSDataInputStream#read(long, byte[], int, int)}), which carry
 * no cursor, so concurrent reads are safe. The size comes from the file's status, read once when opened; a file
 * that shrinks under a read is a {@link SourceChangedException} (its size is pinned when opened); a change the
 * filesystem reports itself (S3A's and ABFS's {@code RemoteFileChangedException}, from their ETag checks) is one
 * too. Hadoop has no version to pin in general: a file rewritten in place at the same or a greater length is read
 * as it comes. No message or cause quotes the location's user information ({@link HadoopFailures}).
 */
final class HadoopSource extends AbstractPositionalSource {
    private final FSDataInputStream in;
    private final URI location;

    private HadoopSource(String name, URI location, FSDataInputStream in, long size) {
        super(name, size);
        this.location = location;
        this.in = in;
    }

    /**
     * @param location a URI of a Hadoop filesystem
     * @param conf     the configuration that names its implementation and credentials
     * @return the open file
     * @throws IOException NOT_FOUND, ACCESS_DENIED or NOT_A_FILE as the filesystem reports, IO_ERROR otherwise
     */
    static HadoopSource open(URI location, Configuration conf) throws IOException {
        String name = SourceNames.redact(location);
        Path path = new Path(location);
        try {
            FileSystem fs = path.getFileSystem(conf);
            FileStatus status = fs.getFileStatus(path);
            if (!status.isFile()) {
                throw new StorageException(ErrorCode.NOT_A_FILE, name, "is not a file (a folder or a special"
                        + " file): pass a .safetensors file");
            }
            return new HadoopSource(name, location, fs.open(path), status.getLen());
        } catch (IOException e) {
            throw coded(location, e);
        } catch (RuntimeException e) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "the Hadoop filesystem failed: "
                    + SourceNames.clip(HadoopFailures.scrub(e.toString(), location)),
                    HadoopFailures.scrubbed(e, location));
        }
    }

    /**
     * @param location the location the failure is about: its redacted form names the failure, and its user
     *                 information is cut from every message quoted or kept
     * @param e        Hadoop's failure
     * @return the failure as one of this library's coded exceptions
     */
    static IOException coded(URI location, IOException e) {
        if (e instanceof dev.safetensors.ErrorCoded) {
            return e;
        }
        String name = SourceNames.redact(location);
        Throwable cause = HadoopFailures.scrubbed(e, location);
        if (e instanceof FileNotFoundException) {
            SourceNotFoundException missing = new SourceNotFoundException(name, "no such file");
            missing.initCause(cause);
            return missing;
        }
        if (e instanceof AccessControlException) {
            SourceAccessDeniedException denied = new SourceAccessDeniedException(name, "access denied");
            denied.initCause(cause);
            return denied;
        }
        String type = e.getClass().getName();
        if (type.equals("org.apache.hadoop.fs.UnsupportedFileSystemException")) {
            return new StorageException(ErrorCode.IO_ERROR, name, "no Hadoop filesystem is configured for this"
                    + " scheme (set spark.hadoop.fs.SCHEME.impl, or add the connector)", cause);
        }
        String message = SourceNames.clip(String.valueOf(HadoopFailures.scrub(e.getMessage(), location)));
        if (type.endsWith(".RemoteFileChangedException")) {
            return new SourceChangedException(name, "the filesystem reports the file changed while it was read: "
                    + message, cause);
        }
        return new StorageException(ErrorCode.IO_ERROR, name, "the Hadoop filesystem failed: " + message, cause);
    }

    @Override
    protected int readAt(long position, ByteBuffer dst) throws IOException {
        int want = dst.remaining();
        byte[] buffer = dst.hasArray() ? dst.array() : new byte[want];
        int offset = dst.hasArray() ? dst.arrayOffset() + dst.position() : 0;
        int n;
        try {
            n = in.read(position, buffer, offset, want);
        } catch (IOException e) {
            throw coded(location, e);
        }
        if (n <= 0) {
            // the caller asks only below the size the file had when opened: it shrank since
            throw new SourceChangedException(name(), "the file ends before byte " + position + ", but had "
                    + size() + " bytes when it was opened");
        }
        if (dst.hasArray()) {
            dst.position(dst.position() + n);
        } else {
            dst.put(buffer, 0, n);
        }
        return n;
    }

    @Override
    protected void release() throws IOException {
        in.close();
    }
}
