package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.azure.AzureClientOptions;
import dev.safetensors.azure.testing.Azurite;
import dev.safetensors.core.ShardedWriter;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.fixtures.GcsStandIn;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code validate --jobs 8} keeps eight header reads in flight at the store, on every backend: 40 files behind a
 * proxy whose gate holds each header read until eight are held at once (a latch, not a clock: the wait that lets a
 * short-handed run go on only keeps a failing test from hanging). The proxy also counts what it saw: never more than
 * eight requests at once. Throughput against latency is the slow tier's ({@link PrefixThroughputTest}).
 */
class JobsInFlightTest {
    private static final int FILES = 40;
    private static final int JOBS = 8;
    private static final Duration GIVE_UP = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private static byte[] file() {
        return Fixtures.small().build();
    }

    /** Runs the command through a gate of {@link #JOBS} and checks what the store saw. */
    private static void assertJobsInFlight(ShapingProxy gate, Cli.Run run, int lines) {
        assertEquals(lines, run.json().size(), run.describe());
        assertTrue(gate.gateOpened(), "the store saw " + JOBS + " header reads held at once (most in flight: "
                + gate.maxInFlight() + ")");
        assertEquals(JOBS, gate.maxInFlight(), "never more requests at once than --jobs");
    }

    /** @return a request-line test for a GET whose path matches {@code path} */
    private static Predicate<String> gets(String path) {
        Pattern p = Pattern.compile("GET " + path + " HTTP/1\\.1");
        return line -> p.matcher(line).matches();
    }

    @Test
    void s3() throws Exception {
        LoopbackS3 s3 = LoopbackS3.shared();
        byte[] file = file();
        for (int i = 0; i < FILES; i++) {
            s3.put("inflight", String.format(Locale.ROOT, "run/d%d/m%02d.safetensors", i % 4, i), file);
        }
        try (ShapingProxy gate = ShapingProxy.holding(s3.port(), gets("/inflight/run/[^ ?]*\\.safetensors"), JOBS,
                GIVE_UP)) {
            Cli.Run run = InProcess.run(InProcess.S3_ENV, "validate", "--json", "--recursive", "--jobs",
                    Integer.toString(JOBS), "--s3-endpoint", "http://127.0.0.1:" + gate.port(), "--s3-path-style",
                    "s3://inflight/run/").exits(0);
            assertJobsInFlight(gate, run, FILES);
        }
    }

    @Test
    void gcs() throws Exception {
        GcsStandIn gcs = new GcsStandIn();
        try {
            byte[] file = file();
            for (int i = 0; i < FILES; i++) {
                gcs.put("models", String.format(Locale.ROOT, "run/d%d/m%02d.safetensors", i % 4, i), file, 1 + i);
            }
            int port = Integer.parseInt(gcs.hostAndPort().substring(gcs.hostAndPort().lastIndexOf(':') + 1));
            try (ShapingProxy gate = ShapingProxy.holding(port, gets("/download/storage/v1/b/models/o/[^ ]*"), JOBS,
                    GIVE_UP)) {
                Cli.Run run = InProcess.run(Map.of("STORAGE_EMULATOR_HOST", "127.0.0.1:" + gate.port(),
                        "GOOGLE_CLOUD_PROJECT", "test"), "validate", "--json", "--recursive", "--jobs",
                        Integer.toString(JOBS), "gs://models/run/").exits(0);
                assertJobsInFlight(gate, run, FILES);
            }
        } finally {
            gcs.close();
        }
    }

    @Test
    @ResourceLock(Resources.SYSTEM_PROPERTIES)
    void azure() throws Exception {
        Azurite azurite = Azurite.shared();
        byte[] file = file();
        for (int i = 0; i < FILES; i++) {
            azurite.put("inflight", String.format(Locale.ROOT, "run/d%d/m%02d.safetensors", i % 4, i), file);
        }
        java.net.URI endpoint = java.net.URI.create(azurite.endpoint());
        try (ShapingProxy gate = ShapingProxy.holding(endpoint.getPort(),
                // the blob name is one path segment, its slashes percent-encoded
                gets(endpoint.getPath() + "/inflight/run%2F[^ ?]*\\.safetensors"), JOBS, GIVE_UP)) {
            azurite.configureSystemProperties();
            System.setProperty(AzureClientOptions.BLOB_ENDPOINT, "http://127.0.0.1:" + gate.port()
                    + endpoint.getPath());
            Cli.Run run = InProcess.run("validate", "--json", "--recursive", "--jobs", Integer.toString(JOBS),
                    "az://inflight/run/").exits(0);
            assertJobsInFlight(gate, run, FILES);
        } finally {
            Azurite.clearSystemProperties();
        }
    }

    @Test
    void hub() throws Exception {
        ShardedWriter writer = ShardedWriter.create(100);
        for (int i = 0; i < FILES; i++) {
            writer.tensor("t" + i, DType.U8, new long[] {64}, new byte[64]);
        }
        List<Path> written = writer.writeTo(dir);
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (Path f : written) {
            files.put(f.getFileName().toString(), Files.readAllBytes(f));
        }
        assertEquals(FILES + 1, files.size(), "a shard per tensor and the index");
        try (FakeHub hub = new FakeHub();
             ShapingProxy gate = ShapingProxy.holding(hub.endpoint().getPort(),
                     gets("/acme/forty/resolve/[^ ]*-of-\\d{5}\\.safetensors"), JOBS, GIVE_UP)) {
            hub.repository("acme/forty", files);
            Cli.Run run = InProcess.run(Map.of("HF_ENDPOINT", "http://127.0.0.1:" + gate.port()), "validate",
                    "--json", "--jobs", Integer.toString(JOBS), "hf://acme/forty").exits(0);
            // the shards, then their checkpoint
            assertJobsInFlight(gate, run, FILES + 1);
        }
    }
}
