package dev.safetensors.cli;

import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.s3.S3ClientOptions;
import dev.safetensors.s3.S3SourceProvider;

import java.net.URI;

/**
 * The {@code --s3-endpoint} and {@code --s3-path-style} options as an S3 provider. The S3 module is optional at run
 * time (see the module description), so this class is the only one that names its types, and it is loaded only
 * after {@link #available()} said the module is there.
 */
final class S3Settings {
    private static final String MODULE = "dev.safetensors.s3";

    private S3Settings() {
    }

    /**
     * @return whether the S3 backend is in the boot layer, or, when the command runs on the class path (embedded, or
     *         in its own tests), whether the backend's classes are there
     */
    static boolean available() {
        if (S3Settings.class.getModule().isNamed()) {
            return ModuleLayer.boot().findModule(MODULE).isPresent();
        }
        return S3Settings.class.getClassLoader().getResource("dev/safetensors/s3/S3SourceProvider.class") != null;
    }

    /**
     * @param endpoint  the endpoint override, or {@code null}
     * @param pathStyle whether {@code --s3-path-style} was given; without it the backend decides (path-style for a
     *                  custom endpoint, virtual-hosted for AWS)
     * @return a provider whose client is built with these settings
     */
    static RandomAccessSourceProvider provider(URI endpoint, boolean pathStyle) {
        return new S3SourceProvider(new S3ClientOptions(endpoint, pathStyle ? Boolean.TRUE : null));
    }
}
