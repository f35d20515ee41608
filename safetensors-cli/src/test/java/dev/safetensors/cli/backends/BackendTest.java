package dev.safetensors.cli.backends;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.cli.fakebackend.EchoProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Backend folders as the launcher lays them out: the schemes come from the backend's own jar, nothing is loaded until
 * a location needs it, the first use builds a layer of the folder's modules whose providers see the run's S3
 * options, and a folder that provides nothing fails its locations with {@link ErrorCode#UNSUPPORTED_SCHEME}.
 *
 * <p>Isolated: these tests set the S3 system properties as a {@code -D} would, outside {@link S3Settings}'s lock, and
 * every other class that runs a command with {@code --s3-endpoint} restores them under that lock; run beside them, a
 * restore can erase the value a test has just set.
 */
@Isolated
class BackendTest {
    @TempDir
    Path dir;

    /** A jar of the given entries: a name ending in {@code .class} takes the test class of that name. */
    private static Path jar(Path file, Map<String, String> entries) throws IOException {
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file); ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                if (e.getKey().endsWith(".class")) {
                    try (InputStream in = BackendTest.class.getResourceAsStream("/" + e.getKey())) {
                        in.transferTo(zip);
                    }
                } else {
                    zip.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                }
                zip.closeEntry();
            }
        }
        return file;
    }

    private static final String ECHO_CLASS = EchoProvider.class.getName().replace('.', '/') + ".class";

    private Path echoBackend() throws IOException {
        Path folder = dir.resolve("backends/echo");
        jar(folder.resolve("some-sdk-1.0.jar"), Map.of("sdk/Readme.txt", "no descriptor here"));
        jar(folder.resolve("safetensors-echo-1.0.jar"), Map.of(Backend.DESCRIPTOR, "# what it serves\nschemes=Echo\n",
                "META-INF/services/dev.safetensors.RandomAccessSourceProvider", EchoProvider.class.getName() + "\n",
                ECHO_CLASS, ""));
        return folder;
    }

    @Test
    void theSchemesComeFromTheBackendsJarAndAFolderWithoutADescriptorIsNoBackend() throws IOException {
        echoBackend();
        jar(dir.resolve("backends/plain/lib-2.0.jar"), Map.of("x.txt", "x"));
        List<Path> folders = Backend.folders(dir.resolve("backends"));
        assertEquals(List.of(dir.resolve("backends/echo"), dir.resolve("backends/plain")), folders);
        Backend echo = Backend.read(folders.get(0)).orElseThrow();
        assertEquals("echo", echo.name());
        assertEquals(Set.of("echo"), echo.schemes());
        assertTrue(echo.declares("ECHO"));
        assertTrue(Backend.read(folders.get(1)).isEmpty());
        assertEquals(List.of(), Backend.folders(dir.resolve("missing")));
        assertEquals(Set.of("az", "abfss"), Backend.schemes(" az, ,ABFSS "));
    }

    @Test
    void aBackendLoadsOnFirstUseIntoALayerOfItsOwnWithTheRunsS3Options() throws IOException {
        Backend echo = Backend.read(echoBackend()).orElseThrow();
        BackendProvider provider = new BackendProvider(echo, new S3Settings(URI.create("http://127.0.0.1:9"), false));
        assertTrue(provider.supports(Location.parse("echo://x/y")), "from the descriptor, before loading");
        assertFalse(provider.supports(Location.parse("s3://x/y")));
        StorageException e = assertThrows(StorageException.class, () -> provider.open(Location.parse("echo://x/y")));
        assertEquals(ErrorCode.NOT_A_FILE, e.code(), "the loaded provider's own failure");
        assertTrue(e.getMessage().contains("module=safetensors.echo endpoint=http://127.0.0.1:9"),
                e.getMessage());
        assertEquals(null, System.getProperty(S3Settings.ENDPOINT_PROPERTY), "restored after the construction");
        assertTrue(provider.supports(Location.parse("echo://x/y")), "now the provider's own answer");
    }

    @Test
    void aBackendThatProvidesNothingFailsEachLocationWithTheFirstFailure() throws IOException {
        Path folder = dir.resolve("backends/empty");
        jar(folder.resolve("safetensors-empty-1.0.jar"), Map.of(Backend.DESCRIPTOR, "schemes=void"));
        BackendProvider provider = new BackendProvider(Backend.read(folder).orElseThrow(), S3Settings.NONE);
        StorageException first = assertThrows(StorageException.class, () -> provider.open(Location.parse("void://a/b")));
        assertEquals(ErrorCode.UNSUPPORTED_SCHEME, first.code());
        assertTrue(first.getMessage().contains("the empty backend provides no"), first.getMessage());
        StorageException second = assertThrows(StorageException.class,
                () -> provider.list(dev.safetensors.Location.parse("void://a/"), dev.safetensors.ListOptions.DEFAULT));
        assertEquals(ErrorCode.UNSUPPORTED_SCHEME, second.code());
        assertSame(first.getCause(), second.getCause(), "loaded once: the same failure, not a second attempt");
    }

    @Test
    void theS3OptionsAreSetOnlyWhileProvidersAreConstructed() {
        System.setProperty(S3Settings.PATH_STYLE_PROPERTY, "false");
        try {
            String seen = new S3Settings(URI.create("http://h:1"), true).construct(
                    () -> System.getProperty(S3Settings.ENDPOINT_PROPERTY) + " "
                            + System.getProperty(S3Settings.PATH_STYLE_PROPERTY));
            assertEquals("http://h:1 true", seen);
            assertEquals(null, System.getProperty(S3Settings.ENDPOINT_PROPERTY));
            assertEquals("false", System.getProperty(S3Settings.PATH_STYLE_PROPERTY), "a -D of the JVM comes back");
            assertEquals("null false", S3Settings.NONE.construct(() -> System.getProperty(S3Settings.ENDPOINT_PROPERTY)
                    + " " + System.getProperty(S3Settings.PATH_STYLE_PROPERTY)), "without options, the JVM's");
        } finally {
            System.clearProperty(S3Settings.PATH_STYLE_PROPERTY);
        }
    }
}
