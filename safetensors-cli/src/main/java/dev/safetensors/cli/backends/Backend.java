package dev.safetensors.cli.backends;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Enumeration;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * One storage backend as the launcher lays it out, a folder of {@code lib/backends}: the backend's module and the
 * modules it needs (an SDK), and, for a backend whose dependencies must stay off the module path (Google Cloud's
 * split packages), a {@value #CLASS_PATH} sub-folder of plain jars. Which schemes it serves is read from its own jar
 * ({@value #DESCRIPTOR}, key {@value #SCHEMES_KEY}) without loading any of its classes, so the command names no
 * backend and no scheme, and a new backend is one more folder.
 *
 * <p>{@link #load()} builds the backend's {@link ModuleLayer} over the boot layer: every module of the folder is a
 * root (an SDK's logging module is required by no one, only read by automatic modules), and the class-path jars, if
 * any, are the parent loader of the layer's one loader, so the backend's automatic module, which reads every unnamed
 * module, sees them. Immutable; {@link #load()} builds a new layer on every call (the caller keeps the result).
 */
final class Backend {
    /** The resource each backend's jar carries: a properties file naming the schemes it serves. */
    static final String DESCRIPTOR = "META-INF/safetensors/backend.properties";
    /** The key of {@value #DESCRIPTOR}: the schemes, comma-separated, without {@code ://}. */
    static final String SCHEMES_KEY = "schemes";
    /** The sub-folder of plain jars that are the layer's parent class loader. */
    static final String CLASS_PATH = "classpath";
    /** The largest descriptor read: a few schemes fit in far less. */
    private static final int MAX_DESCRIPTOR_BYTES = 4096;

    private final Path folder;
    private final Set<String> schemes;

    private Backend(Path folder, Set<String> schemes) {
        this.folder = folder;
        this.schemes = schemes;
    }

    /**
     * @param backends the folder of backend folders
     * @return its sub-folders, by name; none if it does not exist
     * @throws IOException if it cannot be listed
     */
    static List<Path> folders(Path backends) throws IOException {
        return Files.isDirectory(backends) ? sorted(backends, Files::isDirectory) : List.of();
    }

    /**
     * @param folder a backend folder
     * @return the backend, or empty when none of its jars declares a scheme (not a backend)
     * @throws IOException if a jar of it cannot be read
     */
    static Optional<Backend> read(Path folder) throws IOException {
        Set<String> schemes = declaredSchemes(folder);
        return schemes.isEmpty() ? Optional.empty() : Optional.of(new Backend(folder, schemes));
    }

    /**
     * @param loader where installed backends are (the boot layer's modules and the class path)
     * @return the schemes every descriptor visible to it declares: the backends already loaded
     * @throws IOException if a descriptor cannot be read
     */
    static Set<String> installedSchemes(ClassLoader loader) throws IOException {
        Set<String> schemes = new TreeSet<>();
        Enumeration<URL> descriptors = loader.getResources(DESCRIPTOR);
        while (descriptors.hasMoreElements()) {
            URL url = descriptors.nextElement();
            try (InputStream in = url.openStream()) {
                schemes.addAll(schemes(properties(read(in, url.toString())).getProperty(SCHEMES_KEY, "")));
            }
        }
        return schemes;
    }

    /** @return the backend's folder name */
    String name() {
        return folder.getFileName().toString();
    }

    /** @return the schemes this backend declares, lower case */
    Set<String> schemes() {
        return schemes;
    }

    /**
     * @param scheme a URI scheme
     * @return whether this backend declares it
     */
    boolean declares(String scheme) {
        return scheme != null && schemes.contains(scheme.toLowerCase(Locale.ROOT));
    }

    /**
     * What a loaded backend provides: its readers, and its writers (none for a read-only backend).
     *
     * @param providers the read providers, at least one
     * @param writers   the writers
     */
    record Loaded(List<RandomAccessSourceProvider> providers, List<ObjectWriterProvider> writers) {
        Loaded {
            providers = List.copyOf(providers);
            writers = List.copyOf(writers);
        }
    }

    /**
     * Builds the backend's layer and instantiates the providers and writers its modules declare.
     *
     * @return the providers and writers defined in the new layer (not those of the boot layer, which a layer's
     *         {@link ServiceLoader} also sees)
     * @throws IOException a {@link StorageException} with {@link ErrorCode#UNSUPPORTED_SCHEME} if the layer cannot be
     *                     resolved or defined, or declares no provider
     */
    Loaded load() throws IOException {
        ModuleLayer layer;
        try {
            ModuleFinder finder = ModuleFinder.of(folder);
            Set<String> roots = finder.findAll().stream().map(r -> r.descriptor().name())
                    .collect(Collectors.toSet());
            Configuration configuration = ModuleLayer.boot().configuration()
                    .resolveAndBind(finder, ModuleFinder.of(), roots);
            layer = ModuleLayer.defineModulesWithOneLoader(configuration, List.of(ModuleLayer.boot()),
                    parentLoader()).layer();
        } catch (RuntimeException e) {
            // FindException, ResolutionException, LayerInstantiationException: a broken or mixed installation
            throw failure("cannot be loaded: " + e.getMessage(), e);
        }
        List<RandomAccessSourceProvider> providers = definedIn(layer, RandomAccessSourceProvider.class);
        if (providers.isEmpty()) {
            throw failure("provides no dev.safetensors.RandomAccessSourceProvider", null);
        }
        return new Loaded(providers, definedIn(layer, ObjectWriterProvider.class));
    }

    /** The services of a type that the layer's own modules provide, instantiated. */
    private <T> List<T> definedIn(ModuleLayer layer, Class<T> service) throws StorageException {
        List<T> found = new ArrayList<>();
        try {
            for (ServiceLoader.Provider<T> p : ServiceLoader.load(layer, service).stream().toList()) {
                if (p.type().getModule().getLayer() == layer) {
                    found.add(p.get());
                }
            }
        } catch (java.util.ServiceConfigurationError e) {
            throw failure("has a provider that cannot be created: " + e.getMessage(), e);
        }
        return found;
    }

    private StorageException failure(String detail, Throwable cause) {
        return new StorageException(ErrorCode.UNSUPPORTED_SCHEME, folder.toString(), "the " + name()
                + " backend " + detail, cause);
    }

    /** The class-path jars in a loader of their own, or the command's loader when there are none. */
    private ClassLoader parentLoader() throws IOException {
        ClassLoader command = Backend.class.getClassLoader();
        Path classPath = folder.resolve(CLASS_PATH);
        if (!Files.isDirectory(classPath)) {
            return command;
        }
        List<URL> urls = new ArrayList<>();
        for (Path jar : sorted(classPath, Backend::isJar)) {
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw failure("has a jar with no URL: " + e.getMessage(), e);
            }
        }
        return new URLClassLoader(folder.getFileName() + "-" + CLASS_PATH, urls.toArray(URL[]::new), command);
    }

    /**
     * The schemes the folder's descriptor names, from the first jar that has one: the project's own jars
     * ({@code safetensors-*}) are looked at first, so a folder of thirty SDK jars opens one.
     */
    private static Set<String> declaredSchemes(Path folder) throws IOException {
        List<Path> jars = new ArrayList<>(sorted(folder, Backend::isJar));
        jars.sort(Comparator.comparing(j -> !j.getFileName().toString().startsWith("safetensors-")));
        for (Path jar : jars) {
            Optional<Properties> descriptor = descriptor(jar);
            if (descriptor.isPresent()) {
                return schemes(descriptor.get().getProperty(SCHEMES_KEY, ""));
            }
        }
        return Set.of();
    }

    private static Optional<Properties> descriptor(Path jar) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry(DESCRIPTOR);
            if (entry == null) {
                return Optional.empty();
            }
            try (InputStream in = zip.getInputStream(entry)) {
                return Optional.of(properties(read(in, jar.toString())));
            }
        }
    }

    private static String read(InputStream in, String where) throws IOException {
        byte[] bytes = in.readNBytes(MAX_DESCRIPTOR_BYTES + 1);
        if (bytes.length > MAX_DESCRIPTOR_BYTES) {
            throw new StorageException(ErrorCode.IO_ERROR, where, DESCRIPTOR + " is larger than "
                    + MAX_DESCRIPTOR_BYTES + " bytes");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * @param text a descriptor's text
     * @return its properties
     * @throws IOException if it does not parse
     */
    static Properties properties(String text) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = new java.io.StringReader(text)) {
            properties.load(reader);
        } catch (IllegalArgumentException e) {
            throw new StorageException(ErrorCode.IO_ERROR, DESCRIPTOR, "malformed: " + e.getMessage(), e);
        }
        return properties;
    }

    /**
     * @param list a descriptor's {@value #SCHEMES_KEY} value
     * @return the schemes it names, lower case, blanks dropped
     */
    static Set<String> schemes(String list) {
        Set<String> schemes = new TreeSet<>();
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                schemes.add(s.trim().toLowerCase(Locale.ROOT));
            }
        }
        return Set.copyOf(schemes);
    }

    private static boolean isJar(Path path) {
        return path.getFileName().toString().endsWith(".jar") && Files.isRegularFile(path);
    }

    private static List<Path> sorted(Path folder, java.util.function.Predicate<Path> filter) throws IOException {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder)) {
            for (Path p : stream) {
                if (filter.test(p)) {
                    entries.add(p);
                }
            }
        }
        entries.sort(Comparator.comparing(Path::toString));
        return entries;
    }
}
