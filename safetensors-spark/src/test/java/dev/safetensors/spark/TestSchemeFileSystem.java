package dev.safetensors.spark;

import org.apache.hadoop.fs.RawLocalFileSystem;

import java.net.URI;

/**
 * The local filesystem under its own scheme, {@code testfs:}, registered with {@code fs.testfs.impl}: a Hadoop
 * filesystem that no backend of the library serves, so the source must list and read it through Hadoop.
 */
public class TestSchemeFileSystem extends RawLocalFileSystem {
    static final String SCHEME = "testfs";

    /** Hadoop creates it by reflection. */
    public TestSchemeFileSystem() {
    }

    @Override
    public URI getUri() {
        return URI.create(SCHEME + ":///");
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }
}
