package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceAccessDeniedException;
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
 * that changes length between reads is the filesystem's to report, as Hadoop has no version to pin.
 */
final class HadoopSource extends AbstractPositionalSource {
    private final FSDataInputStream in;

    private HadoopSource(String name, FSDataInputStream in, long size) {
        super(name, size);
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
            return new HadoopSource(name, fs.open(path), status.getLen());
        } catch (IOException e) {
            throw coded(name, e);
        } catch (RuntimeException e) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "the Hadoop filesystem failed: " + e, e);
        }
    }

    /** @return the failure as one of this library's coded exceptions */
    static IOException coded(String name, IOException e) {
        if (e instanceof dev.safetensors.ErrorCoded) {
            return e;
        }
        if (e instanceof FileNotFoundException) {
            SourceNotFoundException missing = new SourceNotFoundException(name, "no such file");
            missing.initCause(e);
            return missing;
        }
        if (e instanceof AccessControlException) {
            SourceAccessDeniedException denied = new SourceAccessDeniedException(name, "access denied");
            denied.initCause(e);
            return denied;
        }
        if (e.getClass().getName().equals("org.apache.hadoop.fs.UnsupportedFileSystemException")) {
            return new StorageException(ErrorCode.IO_ERROR, name, "no Hadoop filesystem is configured for this"
                    + " scheme (set spark.hadoop.fs.SCHEME.impl, or add the connector)", e);
        }
        return new StorageException(ErrorCode.IO_ERROR, name, "the Hadoop filesystem failed: "
                + SourceNames.clip(String.valueOf(e.getMessage())), e);
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
            throw coded(name(), e);
        }
        if (n <= 0) {
            return -1;
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
