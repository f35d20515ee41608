package dev.safetensors.azure.testing;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import dev.safetensors.azure.AzureClientOptions;
import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Azurite's Blob service, the Azure Storage emulator, in a child process on a free loopback port, in memory, with its
 * workspace in a temporary folder removed on {@link #close()}. It is installed by {@code .ci/azurite} into
 * {@code .ci/node_modules} (found by walking up from the working directory, or named by the system property
 * {@value #BINARY_PROPERTY}). Without it, {@link #start()} fails the test under {@code CI=true} and skips it, loudly,
 * elsewhere.
 *
 * <p>Azurite's well-known development account and key are public: they are not secrets.
 */
public final class Azurite implements AutoCloseable {
    /** The system property that names the {@code azurite-blob} program, overriding the search. */
    public static final String BINARY_PROPERTY = "safetensors.azurite";
    /** Azurite's development account. */
    public static final String ACCOUNT = "devstoreaccount1";
    /** Azurite's development account key (published in Azurite's documentation). */
    public static final String KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    private static final Pattern LISTENING = Pattern.compile("listens on http://127\\.0\\.0\\.1:(\\d+)");
    private static final long START_SECONDS = 60;

    private static Azurite shared;

    private final Process process;
    private final Path workspace;
    private final int port;
    private final BlobServiceClient client;

    private Azurite(Process process, Path workspace, int port) {
        this.process = process;
        this.workspace = workspace;
        this.port = port;
        this.client = new BlobServiceClientBuilder().connectionString(connectionString()).buildClient();
    }

    /**
     * @return the test JVM's one Azurite, started on first use and stopped when the JVM exits: for tests whose
     *         backend is built once per JVM (the Spark source's registry caches one client per account, bound to the
     *         endpoint it first saw), so every class must talk to the same server; they write blobs of their own
     * @throws IOException if it does not start (and the test is skipped, as {@link #start()} says, if Azurite is not
     *                     installed)
     */
    public static synchronized Azurite shared() throws IOException {
        if (shared == null) {
            Azurite started = start();
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "azurite-stop"));
            shared = started;
        }
        return shared;
    }

    /**
     * Starts Azurite and waits (at most a minute) until it listens.
     *
     * @return the running emulator
     * @throws IOException if it cannot be started
     */
    public static Azurite start() throws IOException {
        Path binary = binary();
        if (binary == null) {
            String message = "Azurite is not installed (run .ci/azurite, which puts it in .ci/node_modules):"
                    + " the Azurite tests are SKIPPED";
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException("FAILED: " + message.replace(": the Azurite tests are SKIPPED", "")
                        + ", and CI=true requires it");
            }
            System.err.println("*** WARNING: " + message);
            Assumptions.abort(message);
        }
        Path workspace = Files.createTempDirectory("azurite-");
        ProcessBuilder pb = new ProcessBuilder(List.of(binary.toString(), "--blobHost", "127.0.0.1", "--blobPort",
                "0", "--inMemoryPersistence", "--extentMemoryLimit", "512", "--skipApiVersionCheck", "--silent",
                "--disableTelemetry"))
                .directory(workspace.toFile())
                .redirectErrorStream(true);
        Process process = pb.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended; start() sees it through the missing line
            }
        }, "azurite-output");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        StringBuilder seen = new StringBuilder();
        try {
            while (System.nanoTime() < deadline) {
                String line = lines.poll(200, TimeUnit.MILLISECONDS);
                if (line == null) {
                    if (!process.isAlive() && lines.isEmpty()) {
                        break;
                    }
                    continue;
                }
                seen.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    return new Azurite(process, workspace, Integer.parseInt(m.group(1)));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        delete(workspace);
        throw new IOException("Azurite did not start within " + START_SECONDS + " s; it said:\n" + seen);
    }

    /** @return the blob endpoint, path-style: {@code http://127.0.0.1:PORT/devstoreaccount1} */
    public String endpoint() {
        return "http://127.0.0.1:" + port + "/" + ACCOUNT;
    }

    /** @return the connection string of the development account at this emulator */
    public String connectionString() {
        return "DefaultEndpointsProtocol=http;AccountName=" + ACCOUNT + ";AccountKey=" + KEY + ";BlobEndpoint="
                + endpoint() + ";";
    }

    /**
     * Configures the Azure backend that {@link java.util.ServiceLoader} builds (the command's, Spark's) for this
     * Azurite, through the {@code AZURE_STORAGE_*} system properties, which it reads over the environment. They are
     * JVM-wide: a test class that calls this holds {@code @ResourceLock(Resources.SYSTEM_PROPERTIES)}.
     */
    public void configureSystemProperties() {
        System.setProperty(AzureClientOptions.ACCOUNT, ACCOUNT);
        System.setProperty(AzureClientOptions.KEY, KEY);
        System.setProperty(AzureClientOptions.BLOB_ENDPOINT, endpoint());
    }

    /** Clears what {@link #configureSystemProperties()} set. */
    public static void clearSystemProperties() {
        System.clearProperty(AzureClientOptions.ACCOUNT);
        System.clearProperty(AzureClientOptions.KEY);
        System.clearProperty(AzureClientOptions.BLOB_ENDPOINT);
    }

    /** @return a client of the development account, with the SDK's defaults, for setting up blobs */
    public BlobServiceClient client() {
        return client;
    }

    /**
     * Uploads (or overwrites) a blob, creating its container if needed.
     *
     * @param container the container
     * @param blob      the blob name
     * @param content   the bytes
     * @return the new ETag
     */
    public String put(String container, String blob, byte[] content) {
        BlobContainerClient c = client.getBlobContainerClient(container);
        c.createIfNotExists();
        return c.getBlobClient(blob).uploadWithResponse(new com.azure.storage.blob.options.BlobParallelUploadOptions(
                BinaryData.fromBytes(content)), null, null).getValue().getETag();
    }

    /** Stops the emulator (waiting at most ten seconds) and removes its workspace. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        delete(workspace);
    }

    private static Path binary() {
        String named = System.getProperty(BINARY_PROPERTY);
        if (named != null && !named.isBlank()) {
            Path p = Paths.get(named);
            return Files.isExecutable(p) ? p : null;
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path p = dir.resolve(".ci/node_modules/.bin/azurite-blob");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static void delete(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder left behind is harmless
        }
    }
}
