package dev.safetensors.spark;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

import java.io.IOException;
import java.net.URI;

/**
 * The local filesystem under its own scheme, {@code testfs:}, registered with {@code fs.testfs.impl}: a Hadoop
 * filesystem that no backend of the library serves, so the source must list and read it through Hadoop.
 */
public class TestSchemeFileSystem extends RawLocalFileSystem {
    static final String SCHEME = "testfs";

    private static final URI ROOT = URI.create(SCHEME + ":///");

    /**
     * {@code testfs://AUTHORITY/} for a filesystem Hadoop made for an authority, else {@code null} for
     * {@link #ROOT}; no initializer, as the superclass's constructor already asks {@link #getUri()}.
     */
    private URI uri;

    /** Hadoop creates it by reflection. */
    public TestSchemeFileSystem() {
    }

    /** Keeps the authority Hadoop made it for, so that {@code testfs://host/path} names a file as HDFS's would. */
    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        if (name.getRawAuthority() != null) {
            uri = URI.create(SCHEME + "://" + name.getRawAuthority() + "/");
        }
        super.initialize(name, conf);
    }

    @Override
    public URI getUri() {
        return uri == null ? ROOT : uri;
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    /**
     * The entries without their owner and permissions: without Hadoop's native library, the local filesystem reads
     * those lazily through {@code new File(uri)}, which refuses a {@code testfs:} URI, and a recursive
     * {@link #listFiles} asks for them.
     */
    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        FileStatus[] listed = super.listStatus(f);
        FileStatus[] plain = new FileStatus[listed.length];
        for (int i = 0; i < listed.length; i++) {
            FileStatus s = listed[i];
            plain[i] = new FileStatus(s.getLen(), s.isDirectory(), s.getReplication(), s.getBlockSize(),
                    s.getModificationTime(), s.getPath());
        }
        return plain;
    }
}
