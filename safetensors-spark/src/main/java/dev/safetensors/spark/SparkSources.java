package dev.safetensors.spark;

import dev.safetensors.core.SourceRegistry;
import dev.safetensors.core.Sources;

/**
 * The registry the Spark source reads, lists and writes through: the installed backends (as {@link Sources}), with
 * {@code s3://} (the source's form of {@code s3a://}) served by {@link S3aSourceProvider} and
 * {@link S3aObjectWriter} first when {@code safetensors-s3} is on the class path, so that Hadoop's {@code fs.s3a.*}
 * settings shipped with the job apply, and not JVM-wide system properties; then the default registry's providers
 * and writers themselves (their clients shared, not built twice). Hadoop's other schemes are served by the installed
 * {@link HadoopSourceProvider} and {@link HadoopObjectWriter}. Built once per JVM, never closed (as
 * {@link Sources#registry()}), and closing it would close nothing: every provider in it is given.
 */
final class SparkSources {
    private static volatile SourceRegistry registry;

    private SparkSources() {
    }

    /** @return the registry, built on first use */
    static SourceRegistry registry() {
        SourceRegistry r = registry;
        if (r == null) {
            synchronized (SparkSources.class) {
                r = registry;
                if (r == null) {
                    if (s3Installed()) {
                        SourceRegistry.Builder builder = SourceRegistry.builder().provider(new S3aSourceProvider())
                                .writer(new S3aObjectWriter()).writer(new InstalledWriters());
                        Sources.registry().providers().forEach(builder::provider);
                        r = builder.build();
                    } else {
                        r = Sources.registry();
                    }
                    registry = r;
                }
            }
        }
        return r;
    }

    /** @return whether the S3 backend is on the class path: the S3A classes name its types */
    private static boolean s3Installed() {
        try {
            Class.forName("dev.safetensors.s3.S3SourceProvider", false, SparkSources.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
