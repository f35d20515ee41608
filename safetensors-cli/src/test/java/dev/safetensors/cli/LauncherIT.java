package dev.safetensors.cli;

import dev.safetensors.azure.testing.Azurite;
import dev.safetensors.fixtures.GcsStandIn;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.output.StandardOutput;

/**
 * What only the launcher and a real process show: the terminal flags the launcher passes, a manifest read from a
 * pipe (the launcher never reads user files), standard output that is a full device or a pipe closed early, and the
 * cloud backends, which the command loads into layers of their own on first use, wherever a location comes from
 * (standard input, {@code --from-file}, an index), against s3proxy, Azurite and the GCS stand-in. Every other test
 * of the command runs it in-process ({@link InProcess}): a JVM start is what costs here, so each run proves what it
 * can (one run over Azure reads locations from standard input and an index the run before wrote there), every run but
 * the cache test's skips the class data archive and C2 ({@link Cli#SHORT_RUN}), and the S3 tests share the test JVM's
 * s3proxy ({@link LoopbackS3#shared()}), each in a bucket of its own.
 *
 * <p>The tests run two at a time (the module's parallelism), since each mostly waits on its runs: each has a folder
 * of its own, S3 and Azure buckets of its own in the JVM's shared servers, a GCS stand-in of its own, and only the
 * cache test reads or writes the launcher's {@code target/cds} (every other run skips it).
 */
@Execution(ExecutionMode.CONCURRENT)
class LauncherIT {
    @TempDir
    Path dir;

    /** Slow tier: two runs that each hash a 1 GiB (sparse) file. */
    @Test
    void thePackagePhaseLeavesTheStampTheLauncherComparesTheSourcesWith() throws IOException {
        // LauncherFreshnessTest: how the launcher uses it
        Path stamp = Path.of("target/lib/.built");
        assertTrue(Files.isRegularFile(stamp), "package touches " + stamp);
        try (var files = Files.walk(Path.of("target/lib"))) {
            for (Path jar : files.filter(f -> f.toString().endsWith(".jar")).toList()) {
                assertFalse(Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(stamp)) > 0,
                        jar + " is not newer than the stamp");
            }
        }
    }

    @Test
    @Tag("slow")
    void progressIsDrawnOnATerminalOnly() {
        long payload = 1L << 30;
        Path big = Fixtures.sparse(dir.resolve("big.safetensors"), dev.safetensors.fixtures.SafetensorsFixture.create()
                .tensor("w", "F32", payload / 4).headerJson(), payload);
        String sha = "0".repeat(64);
        // the launcher says stderr is no terminal here (a pipe); the property plays the terminal
        // as shipped: C2 hashes the GiB in a second where C1 takes ten
        Cli.Run quiet = Cli.run(Cli.asShipped(Map.of()), "verify", big.toString(), "--sha256", sha).exits(1);
        assertEquals("", quiet.stderr(), quiet.describe());
        Cli.Run drawn = Cli.run(Cli.asShipped(Map.of("SAFETENSORS_JAVA_OPTS", "-Dsafetensors.stderr.terminal=true")),
                "verify", big.toString(), "--sha256", sha).exits(1);
        assertTrue(drawn.stderr().contains("\r[#"), drawn.describe());
        assertTrue(drawn.stderr().contains(" / 1.1 GB  "), drawn.describe());
        assertTrue(drawn.stderr().endsWith("\r\u001b[K"), "the bar is erased at the end\n" + drawn.describe());
        assertTrue(drawn.outLines().get(0).startsWith("INVALID     " + big + ": the SHA-256 computed here is "),
                drawn.describe());
    }

    @Test
    void javaOptsReachTheJvmAndTheCommandsOwnOptionsComeAfter() throws IOException {
        Path file = Fixtures.write(dir, "o.safetensors", Fixtures.small().build());
        // a heap too small to start proves the options reached the JVM; the command's own options come later and win
        Cli.Run refused = Cli.run(Map.of("JAVA_OPTS", "-Xmx1m"), "validate", file.toString());
        // the JVM says so on standard output, before any code of ours runs
        String said = new String(refused.stdout(), java.nio.charset.StandardCharsets.UTF_8) + refused.stderr();
        assertTrue(refused.exit() != 0 && said.contains("Too small maximum heap"), refused.describe());
        Cli.run(Map.of("JAVA_OPTS", "-Xmx1m", "SAFETENSORS_JAVA_OPTS", "-Xmx256m"), "validate", file.toString())
                .exits(0);
    }

    @Test
    void aManifestFromAPipeOrAProcessSubstitutionIsReadByJavaOnly() throws IOException {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Path manifest = dir.resolve("m.manifest.json");
        Files.write(manifest, InProcess.run("manifest", file.toString()).exits(0).stdout());
        Cli.Run piped = Cli.shell("cat \"$1\" | \"$0\" verify --manifest /dev/stdin", manifest.toString()).exits(0);
        assertTrue(piped.outLines().get(0).startsWith("OK          " + file + ": all checks passed"), piped.describe());
        Cli.Run substituted = Cli.shell("\"$0\" verify --manifest <(cat \"$1\")", manifest.toString()).exits(0);
        assertEquals(1, substituted.outLines().size(), substituted.describe());
    }

    @Test
    void aFullDeviceOnStdoutExitsThreeWithAMessage() {
        // the process's real stdout on a full device; every command's handling of a failed write is
        // CommandFailuresTest.everyCommandExitsThreeWhenStdoutCannotBeWritten, in-process
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Cli.Run run = Cli.shell("\"$0\" inspect --json \"$1\" > /dev/full", file.toString()).exits(3);
        assertEquals(List.of("safetensors: cannot write to standard output (a closed pipe or a full disk?); the"
                + " output is incomplete [WRITE_FAILED]"), run.errLines(), run.describe());
    }

    @Test
    void aPipeClosedEarlyEndsQuietlyAsCatDoes() {
        long values = 4L << 20;
        Path big = Fixtures.sparse(dir.resolve("big.safetensors"), dev.safetensors.fixtures.SafetensorsFixture.create()
                .tensor("w", "F32", values).headerJson(), values * 4);
        // head exits after one line; the 16 MB of text that follow meet a closed pipe
        Cli.Run run = Cli.shell("\"$0\" dump --f32 \"$1\" w | head -n 1; exit \"${PIPESTATUS[0]}\"",
                big.toString()).exits(StandardOutput.CLOSED_PIPE_STATUS);
        assertEquals(List.of("0.0"), run.outLines(), run.describe());
        assertEquals(List.of(), run.errLines(), "nothing to report, as for cat or grep\n" + run.describe());
    }

    @Test
    void aFileWhoseNameIsNotUtf8IsOpened() {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Cli.Run run = Cli.shell("name=\"$(printf '%s/m\\xff.safetensors' \"$2\")\"; cp \"$1\" \"$name\";"
                + " \"$0\" validate \"$name\"", file.toString(), dir.toString()).exits(0);
        assertEquals(List.of("OK          " + dir + "/m\\ufffd.safetensors: 3 tensors, 12 parameters, 272 B"),
                run.outLines(), run.describe());
    }

    /** The launcher's JVM writes the classes it loads here, to show which backends a run loaded. */
    private Map<String, String> classLog(Path log) {
        return Map.of("SAFETENSORS_JAVA_OPTS", "-Xlog:class+load=info:file=" + log);
    }

    private static String loaded(Path log) throws IOException {
        return Files.readString(log);
    }

    @Test
    void s3LocationsFromStandardInputWithOnlyAwsVariablesAreValid() throws IOException {
        Fixtures.twoShards(dir.resolve("store/ckpt"));
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.put("launcher-stdin", "m/x.safetensors", Fixtures.small().build());
        s3.putFiles("launcher-stdin", dir.resolve("store"));
        Map<String, String> env = new java.util.HashMap<>(awsOnly(s3));
        Path log = dir.resolve("s3.classes");
        env.putAll(classLog(log));
        // the done-when line of the issue, and an index whose shards are S3 objects
        Cli.Run run = Cli.shell(env, "printf 's3://launcher-stdin/m/x.safetensors\\ns3://launcher-stdin/ckpt/"
                + "model.safetensors.index.json\\n' | \"$0\" validate --json -").exits(0);
        // every result line names its source (a closing summary line, if any, names none)
        List<tools.jackson.databind.JsonNode> results = run.json().stream().filter(n -> n.has("source")).toList();
        List<String> sources = results.stream().map(n -> n.get("source").asString()).toList();
        assertTrue(sources.contains("s3://launcher-stdin/m/x.safetensors"), run.describe());
        assertTrue(sources.contains("s3://launcher-stdin/ckpt/model-00002-of-00002.safetensors"), run.describe());
        results.stream().filter(n -> n.get("source").asString().equals("s3://launcher-stdin/m/x.safetensors"))
                .forEach(n -> assertEquals("valid", n.get("status").asString(), run.describe()));
        String classes = loaded(log);
        assertTrue(classes.contains("dev.safetensors.s3.S3SourceProvider"), "the S3 backend was loaded");
        assertFalse(classes.contains("com.azure.") || classes.contains("com.google.cloud."),
                "a run over S3 pays for the S3 backend alone");
    }

    @Test
    void theS3OptionsReachTheBackendInItsLayer() throws IOException {
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.put("launcher-options", "m/x.safetensors", Fixtures.small().build());
        Map<String, String> env = new java.util.HashMap<>(awsOnly(s3));
        env.remove("AWS_ENDPOINT_URL");
        Cli.Run run = Cli.shell(env, "echo s3://launcher-options/m/x.safetensors | \"$0\" validate --s3-endpoint"
                + " \"$1\" --s3-path-style -", s3.endpoint().toString()).exits(0);
        assertTrue(run.out().startsWith("OK          s3://launcher-options/m/x.safetensors: 3 tensors"),
                run.describe());
    }

    @Test
    void reshardWritesIntoS3ThroughTheBackendsLayer() throws IOException {
        Path index = Fixtures.twoShards(dir.resolve("local"));
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.put("launcher-out", "placeholder", new byte[0]);
        Map<String, String> env = new java.util.HashMap<>(awsOnly(s3));
        env.remove("AWS_ENDPOINT_URL");
        Cli.Run run = Cli.run(env, "reshard", index.toString(), "--out", "s3://launcher-out/out/", "--single",
                "--s3-endpoint", s3.endpoint().toString(), "--s3-path-style").exits(0);
        assertTrue(run.out().contains("wrote s3://launcher-out/out/model.safetensors"), run.describe());
        assertEquals(List.of("put out/model.safetensors"), s3.mutations("launcher-out"), run.describe());
        Cli.run(env, "reshard", index.toString(), "--out", "s3://launcher-out/out/", "--single", "--s3-endpoint",
                s3.endpoint().toString(), "--s3-path-style").exits(3);
    }

    /**
     * Two things the Azure backend's layer must do, in two runs rather than three (each loads the Azure SDK): reshard
     * writes into Azure through it, and a later run reads {@code az://} locations from standard input, one of them the
     * index the reshard wrote, loading no other backend.
     */
    @Test
    void reshardWritesIntoAzureAndAzLocationsFromStandardInputAreValid() throws IOException {
        Azurite azurite = Azurite.shared();
        azurite.put("launcherout", "placeholder", new byte[0]);
        azurite.put("launcher", "x.safetensors", Fixtures.small().build());
        Path index = Fixtures.twoShards(dir.resolve("local-az"));
        Map<String, String> env = Map.of("AZURE_STORAGE_ACCOUNT", Azurite.ACCOUNT, "AZURE_STORAGE_KEY", Azurite.KEY,
                "AZURE_STORAGE_BLOB_ENDPOINT", azurite.endpoint());
        Cli.Run run = Cli.run(env, "reshard", "--json", index.toString(), "--out", "az://launcherout/m/",
                "--max-shard-size", "1B").exits(0);
        List<String> outputs = run.jsonLines().stream().filter(n -> n.has("output"))
                .map(n -> n.get("output").asString()).toList();
        assertEquals("az://launcherout/m/model.safetensors.index.json", outputs.get(outputs.size() - 1),
                "reshard wrote the index into Azure, last\n" + run.describe());

        Path log = dir.resolve("az.classes");
        Map<String, String> read = new java.util.HashMap<>(env);
        read.putAll(classLog(log));
        Cli.Run validated = Cli.shell(read, "printf 'az://launcher/x.safetensors\\naz://launcherout/m/"
                + "model.safetensors.index.json\\n' | \"$0\" validate -").exits(0);
        List<String> lines = validated.outLines();
        assertTrue(lines.get(0).startsWith("OK          az://launcher/x.safetensors: 3 tensors"),
                "an az:// location from standard input\n" + validated.describe());
        // exit 0 says every line is OK: the index's too
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("OK          az://launcherout/m/")),
                "the index reshard wrote into Azure, read back\n" + validated.describe());
        String classes = loaded(log);
        assertFalse(classes.contains("software.amazon.") || classes.contains("com.google.cloud."),
                "a run over Azure pays for the Azure backend alone");
    }

    @Test
    void gsLocationsFromAFileAreValid() throws Exception {
        try (GcsStandIn gcs = new GcsStandIn()) {
            gcs.put("models", "x.safetensors", Fixtures.small().build(), 1712345678901234L);
            Path list = Files.writeString(dir.resolve("list.txt"), "gs://models/x.safetensors\n");
            Cli.Run run = Cli.run(Map.of("STORAGE_EMULATOR_HOST", gcs.hostAndPort(), "GOOGLE_CLOUD_PROJECT", "test"),
                    "validate", "--from-file", list.toString()).exits(0);
            assertTrue(run.out().startsWith("OK          gs://models/x.safetensors: 3 tensors"), run.describe());
        }
    }

    @Test
    void aLocalRunLoadsNoBackendAndAnUnknownSchemeNamesTheBackendsSchemes() throws IOException {
        Path log = dir.resolve("local.classes");
        Cli.run(classLog(log), "validate", Cli.examples().resolve("sample.safetensors").toString()).exits(0);
        String classes = loaded(log);
        assertTrue(classes.contains("dev.safetensors.cli.Main"), classes.length() + " bytes of log");
        for (String backend : List.of("dev.safetensors.s3.", "dev.safetensors.azure.", "dev.safetensors.gcs.",
                "software.amazon.", "com.azure.", "com.google.")) {
            assertFalse(classes.contains(backend), backend + " loaded by a local run");
        }
        Cli.Run unknown = Cli.shell("echo foo://bucket/x.safetensors | \"$0\" validate -").exits(3);
        assertTrue(unknown.stderr().contains("no storage backend reads 'foo:' sources; supported: local paths, file:,"
                + " abfs:, abfss:, az:, azure:, gs:, hf:, http:, https:, s3: [UNSUPPORTED_SCHEME]"), unknown.describe());
    }

    /**
     * The start-up caches users get, which every other run here skips ({@link Cli#SHORT_RUN}): the first run of a
     * subcommand after a build records the class data sharing archive, the next run maps its classes from it, and a
     * run without it prints the same, byte for byte. On JDK 25 and later {@code validate} trains an AOT cache instead,
     * so there {@code manifest} checks the archive as well.
     */
    @Test
    void theFirstRunRecordsTheStartUpCacheTheNextUsesItAndBothPrintWhatARunWithoutItPrints() throws IOException {
        Path sample = Cli.examples().resolve("sample.safetensors");
        boolean aot = Runtime.version().feature() >= 25;
        assertCacheRecordedAndUsed("validate", aot ? ".aot" : ".jsa", sample);
        if (aot) {
            assertCacheRecordedAndUsed("manifest", ".jsa", sample);
        }
    }

    private void assertCacheRecordedAndUsed(String command, String suffix, Path sample) throws IOException {
        // the launcher's name for it: the real JDK folder, every other character an underscore, then the run kind
        Path jdk = Path.of(System.getProperty("java.home"), "bin", "java").toRealPath().getParent().getParent();
        Path cache = Cli.launcher().getParent().getParent().resolve("safetensors-cli/target/cds")
                .resolve(jdk.toString().replaceAll("[^A-Za-z0-9.-]", "_") + "-" + command + suffix);
        Files.deleteIfExists(cache);
        String main = "dev.safetensors.cli.Main source: shared objects file";

        Cli.Run recording = Cli.run(Cli.asShipped(Map.of()), command, sample.toString()).exits(0);
        assertTrue(Files.size(cache) > 0, cache + " recorded by the first " + command + "\n" + recording.describe());

        Path used = dir.resolve(command + "-cached.classes");
        Cli.Run cached = Cli.run(Cli.asShipped(classLog(used)), command, sample.toString()).exits(0);
        assertTrue(loaded(used).contains(main), "the next " + command + " maps the command's classes from " + cache);

        Path plain = dir.resolve(command + "-plain.classes");
        Map<String, String> without = new java.util.HashMap<>(Cli.asShipped(classLog(plain)));
        without.put("SAFETENSORS_NO_CDS", "1");
        Cli.Run uncached = Cli.run(without, command, sample.toString()).exits(0);
        assertFalse(loaded(plain).contains(main), "SAFETENSORS_NO_CDS=1 reads the classes from the jars");

        assertArrayEquals(uncached.stdout(), recording.stdout(), "the recording run prints what a run without it"
                + " prints\n" + recording.describe() + "\n" + uncached.describe());
        assertArrayEquals(uncached.stdout(), cached.stdout(), "a run with the " + suffix + " prints what a run"
                + " without it prints\n" + cached.describe() + "\n" + uncached.describe());
        assertEquals(uncached.stderr(), cached.stderr(), "and says the same on stderr");
    }

    /** The AWS SDK's own variables, and nothing else, naming s3proxy: no --s3- option, no profile. */
    private Map<String, String> awsOnly(LoopbackS3 s3) {
        return Map.of("AWS_ACCESS_KEY_ID", LoopbackS3.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", LoopbackS3.SECRET_KEY,
                "AWS_REGION", "us-east-1", "AWS_ENDPOINT_URL", s3.endpoint().toString(),
                "AWS_CONFIG_FILE", dir.resolve("no-aws-config").toString(),
                "AWS_SHARED_CREDENTIALS_FILE", dir.resolve("no-aws-credentials").toString(),
                "AWS_EC2_METADATA_DISABLED", "true");
    }
}
