package dev.safetensors.cli.backends;

import java.net.URI;

/**
 * The {@code --s3-endpoint} and {@code --s3-path-style} options, handed to the S3 backend without naming it: the
 * S3 provider's no-argument constructor (the one {@link java.util.ServiceLoader} calls) reads the system properties
 * {@value #ENDPOINT_PROPERTY} and {@value #PATH_STYLE_PROPERTY}, so the command sets them while it constructs
 * providers ({@link #construct}), whether the backend is on the class path or loaded into a layer of its own on first
 * use. The S3 module may be absent, or in a layer the command's module cannot read.
 *
 * <p>System properties belong to the JVM, and a command embedded in an application (or run in-process by the tests,
 * several at a time) must neither leak its endpoint into another run's providers nor see theirs: the properties are
 * set and restored under one lock that every construction of this class takes, so each run's providers see exactly
 * its own options. Without the options the properties are left as the JVM has them (a {@code -D} given to the
 * launcher still applies). Immutable.
 */
public final class S3Settings {
    /** The system property the S3 provider takes its endpoint from (its {@code S3ClientOptions.ENDPOINT_PROPERTY}). */
    static final String ENDPOINT_PROPERTY = "safetensors.s3.endpoint";
    /** The system property the S3 provider takes path-style addressing from ({@code true} or {@code false}). */
    static final String PATH_STYLE_PROPERTY = "safetensors.s3.pathStyle";
    /** No S3 option given. */
    public static final S3Settings NONE = new S3Settings(null, false);

    private static final Object CONSTRUCTION = new Object();

    private final URI endpoint;
    private final boolean pathStyle;

    /**
     * @param endpoint  the endpoint override, or {@code null}
     * @param pathStyle whether {@code --s3-path-style} was given; without it the backend decides (path-style for a
     *                  custom endpoint, virtual-hosted for AWS)
     */
    public S3Settings(URI endpoint, boolean pathStyle) {
        this.endpoint = endpoint;
        this.pathStyle = pathStyle;
    }

    /** Builds something while the S3 options are visible to the providers it constructs. */
    @FunctionalInterface
    interface Construction<T, X extends Exception> {
        /**
         * @return what was built
         * @throws X if it cannot be built
         */
        T build() throws X;
    }

    /**
     * @param construction what constructs providers (a registry's build, a backend's layer)
     * @param <T>          what it builds
     * @param <X>          what it may throw
     * @return what it built
     * @throws X what it threw
     */
    <T, X extends Exception> T construct(Construction<T, X> construction) throws X {
        synchronized (CONSTRUCTION) {
            String endpointBefore = System.getProperty(ENDPOINT_PROPERTY);
            String pathStyleBefore = System.getProperty(PATH_STYLE_PROPERTY);
            try {
                if (endpoint != null) {
                    System.setProperty(ENDPOINT_PROPERTY, endpoint.toString());
                }
                if (pathStyle) {
                    System.setProperty(PATH_STYLE_PROPERTY, "true");
                }
                return construction.build();
            } finally {
                restore(ENDPOINT_PROPERTY, endpointBefore);
                restore(PATH_STYLE_PROPERTY, pathStyleBefore);
            }
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
