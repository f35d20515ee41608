package dev.safetensors.cli.backends;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SourceRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Opens the sources of one command run through one {@link SourceRegistry}: a {@link BackendProvider} (and its
 * {@link BackendWriter}) for each backend folder the launcher names ({@value #BACKENDS_PROPERTY}), loaded on the
 * first location that needs it, then the
 * providers {@link ServiceLoader} finds where the command runs (the boot layer's, or, for a command embedded in an
 * application or run in-process by the tests, the class path's: every backend there, as before). Providers are
 * constructed with the command line's S3 options ({@link S3Settings}). The registry is built once, on the first
 * remote location, and kept for the whole run, because each backend builds its HTTP or SDK client once per provider
 * instance: a hundred shards then share one client and its connections. A run over local files never loads a cloud
 * SDK class: local locations are served by a registry of local files alone.
 *
 * <p>What cannot name a source at all is refused before anything is opened: an empty path, and a
 * {@code scheme://} location that is not a valid URI (nothing after the scheme, spaces), which would otherwise be
 * looked for as a local file. The rule that only regular files are read is the library's ({@code FileSource}).
 * Thread-safe.
 */
public final class SourceOpener {
    /**
     * The system property naming the folder of backend folders ({@link Backend}) to load on first use; the launcher
     * sets it to {@code safetensors-cli/target/lib/backends}. Unset, only the providers {@link ServiceLoader} finds
     * serve.
     */
    static final String BACKENDS_PROPERTY = "safetensors.backends";

    /** Serves local paths and {@code file:} URIs only. */
    private static final SourceRegistry LOCAL = SourceRegistry.builder().build();

    private final S3Settings s3;
    private final RandomAccessSourceProvider first;
    private SourceRegistry registry;
    /** Why a backend folder could not be read, for the message of a scheme no backend serves. */
    private final List<String> unreadable = new ArrayList<>();

    /** @param s3 the command line's S3 options, which the S3 provider is constructed with */
    public SourceOpener(S3Settings s3) {
        this.s3 = s3;
        this.first = null;
    }

    /** @param first a provider asked before every other (a test's fake store); no S3 options */
    public SourceOpener(RandomAccessSourceProvider first) {
        this.s3 = S3Settings.NONE;
        this.first = first;
    }

    /** @return the run's registry of every provider, built on first use */
    public synchronized SourceRegistry registry() {
        if (registry == null) {
            SourceRegistry.Builder builder = SourceRegistry.builder();
            if (first != null) {
                builder.provider(first);
            }
            for (Backend backend : backends()) {
                BackendProvider provider = new BackendProvider(backend, s3);
                builder.provider(provider).writer(new BackendWriter(provider));
            }
            registry = s3.construct(() -> builder.installedProviders().build());
        }
        return registry;
    }

    /** The backends of {@value #BACKENDS_PROPERTY}; a folder that cannot be read is left out and remembered. */
    private List<Backend> backends() {
        String folder = System.getProperty(BACKENDS_PROPERTY);
        List<Backend> backends = new ArrayList<>();
        if (folder == null || folder.isEmpty()) {
            return backends;
        }
        List<Path> folders;
        try {
            folders = Backend.folders(Path.of(folder));
        } catch (IOException | java.nio.file.InvalidPathException e) {
            unreadable.add(folder + ": " + e.getMessage());
            return backends;
        }
        for (Path f : folders) {
            try {
                Backend.read(f).ifPresent(backends::add);
            } catch (IOException e) {
                unreadable.add(f + ": " + e.getMessage());
            }
        }
        return backends;
    }

    /**
     * @param location what a checkpoint will be located from
     * @param limits   the policy for headers, indexes, configs and listings
     * @param read     how remote tensors are fetched
     * @return the options the library's checkpoint layer opens it with: this run's registry (or the local one, for a
     *         local location, so no backend is loaded)
     */
    public SafetensorsClient options(Location location, Limits limits, ReadOptions read) {
        return SafetensorsClient.builder().registry(location.isLocal() ? LOCAL : registry()).limits(limits)
                .readOptions(read).build();
    }

    /**
     * @param location a local path or a URI
     * @return an open source; the caller closes it
     * @throws IOException if it cannot be opened; {@link InvalidLocationException} for a location that names
     *                     nothing or a scheme no backend serves
     */
    public RandomAccessSource open(Location location) throws IOException {
        checkNamesSomething(location);
        if (location.isLocal()) {
            Path path = localPath(location);
            return location.uri().isEmpty() ? LOCAL.open(UndecodableName.resolve(path)) : LOCAL.open(location);
        }
        if (registry().providers().stream().noneMatch(p -> p.supports(location))) {
            throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "no storage backend reads '"
                    + location.scheme() + ":' sources; supported: " + supportedSchemes());
        }
        return registry().open(location);
    }

    /**
     * @param location a SOURCE argument
     * @throws InvalidLocationException if it is empty, or written as a URI that does not parse
     */
    public static void checkNamesSomething(Location location) throws InvalidLocationException {
        if (location.text().isEmpty()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "empty path: name a .safetensors file");
        }
        if (location.uri().isEmpty() && location.looksLikeUri()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "not a valid URI: a location after"
                    + " the scheme is required, without spaces (encode a space as %20)");
        }
    }

    private static Path localPath(Location location) throws IOException {
        try {
            return location.path();
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "is not a usable local path or file: URI ("
                    + e.getMessage() + ")");
        }
    }

    /**
     * The schemes this run can read, from the backends themselves: those the installed ones declare (their
     * descriptors on the class path or in the boot layer) and those of the backend folders, each kept only when a
     * provider of the registry answers for it; then any backend folder that could not be read.
     */
    private String supportedSchemes() throws IOException {
        TreeSet<String> declared = new TreeSet<>(Backend.installedSchemes(SourceOpener.class.getClassLoader()));
        for (RandomAccessSourceProvider p : registry().providers()) {
            if (p instanceof BackendProvider lazy) {
                declared.addAll(lazy.backend().schemes());
            }
        }
        List<String> supported = new ArrayList<>(List.of("local paths", "file:"));
        for (String scheme : declared) {
            Location probe = Location.parse(scheme + "://x/y");
            if (registry().providers().stream().anyMatch(p -> p.supports(probe))) {
                supported.add(scheme + ":");
            }
        }
        String text = String.join(", ", supported);
        synchronized (this) {
            if (!unreadable.isEmpty()) {
                text += "; backend folders that could not be read: " + String.join("; ", unreadable);
            }
        }
        return text;
    }
}
