package dev.safetensors.cli;

import com.azure.core.util.Context;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.safetensors.DType;
import dev.safetensors.azure.AzureClientOptions;
import dev.safetensors.azure.testing.Azurite;
import dev.safetensors.core.ShardedWriter;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.fixtures.GcsStandIn;
import dev.safetensors.spi.TimeSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PrefixThroughputTest}'s measurement on the other remote backends: Cloud Storage (the test kit's
 * {@link GcsStandIn}), Azure Blob Storage (Azurite) and the Hugging Face Hub ({@link FakeHub}), each behind a loopback
 * proxy that holds every request {@value #DELAY_MILLIS} ms. At {@code --jobs} 1, 4, 16 and 64, {@code validate --json}
 * of a prefix (a repository for the Hub) runs in this JVM beside a plain client of that store in the same run: it
 * lists the objects and reads the first 128 KiB of each with one ranged GET from as many threads as the command has
 * jobs (the JDK's {@link HttpClient} for Cloud Storage and the Hub, the Azure SDK used plainly for Azure, whose
 * requests must be signed). The ideal is jobs / latency; the store, the proxy and both clients share the machine,
 * which is why the plain client is the figure to compare with. A benchmark that prints its figures (see
 * benchmarks/README.md); it asserts only the verdicts and the counts, never a time.
 */
@Tag("slow")
class BackendThroughputTest {
    private static final long DELAY_MILLIS = 50;
    private static final int[] JOBS = {1, 4, 16, 64};
    /** Objects per run at each of {@link #JOBS}: about 5 s of the ideal at 1, 4 and 16. */
    private static final int[] OBJECTS = {100, 400, 1_600, 1_600};
    /**
     * The Hub's: the fake Hub answers each file's resolve from a stub of its own, and WireMock tries every stub in
     * turn, so its cost per request grows with the repository; fewer files keep the fake from being the limit.
     */
    private static final int[] HUB_FILES = {100, 400, 800, 800};
    private static final int PREFETCH = 128 * 1024;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    /** One store as a benchmark sees it: the command's run and the plain client's, over the same proxy. */
    private interface Store {
        /** Runs {@code validate --json} over the set of {@code objects} and checks it printed a verdict for each. */
        void command(ShapingProxy proxy, int objects, int jobs) throws Exception;

        /** @return the plain client's reads of the set of {@code objects}, one task per object, listed first */
        List<Callable<Long>> plain(ShapingProxy proxy, int objects) throws Exception;
    }

    @Test
    void gcs() throws Exception {
        GcsStandIn gcs = new GcsStandIn();
        try {
            byte[] file = Fixtures.small().build();
            int generation = 1;
            for (int objects : IntStream.of(OBJECTS).distinct().toArray()) {
                for (int i = 0; i < objects; i++) {
                    gcs.put("models", name(objects, i), file, generation++);
                }
            }
            String hostAndPort = gcs.hostAndPort();
            int port = Integer.parseInt(hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1));
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            measure("Cloud Storage (GcsStandIn)", port, OBJECTS, new Store() {
                @Override
                public void command(ShapingProxy proxy, int objects, int jobs) {
                    Cli.Run run = InProcess.run(Map.of("STORAGE_EMULATOR_HOST", "127.0.0.1:" + proxy.port(),
                            "GOOGLE_CLOUD_PROJECT", "test"), "validate", "--json", "--recursive", "--jobs",
                            Integer.toString(jobs), "gs://models/n" + objects + "/").exits(0);
                    assertEquals(objects, run.json().size(), run.stderr());
                }

                @Override
                public List<Callable<Long>> plain(ShapingProxy proxy, int objects) throws Exception {
                    String base = "http://127.0.0.1:" + proxy.port();
                    List<String> names = new ArrayList<>();
                    String token = null;
                    do {
                        String url = base + "/storage/v1/b/models/o?maxResults=1000&prefix=n" + objects + "/"
                                + (token == null ? "" : "&pageToken=" + encode(token));
                        JsonNode page = JSON.readTree(getWhole(http, URI.create(url)));
                        page.path("items").forEach(item -> names.add(item.path("name").asString()));
                        token = page.path("nextPageToken").isMissingNode() ? null : page.path("nextPageToken")
                                .asString();
                    } while (token != null);
                    assertEquals(objects, names.size());
                    List<Callable<Long>> reads = new ArrayList<>();
                    for (String name : names) {
                        URI media = URI.create(base + "/download/storage/v1/b/models/o/" + encode(name)
                                + "?alt=media");
                        reads.add(() -> ranged(http, media));
                    }
                    return reads;
                }
            });
        } finally {
            gcs.close();
        }
    }

    @Test
    void azure() throws Exception {
        Azurite azurite = Azurite.shared();
        byte[] file = Fixtures.small().build();
        for (int objects : IntStream.of(OBJECTS).distinct().toArray()) {
            for (int i = 0; i < objects; i++) {
                azurite.put("throughput", name(objects, i), file);
            }
        }
        URI endpoint = URI.create(azurite.endpoint());
        try {
            measure("Azure Blob Storage (Azurite)", endpoint.getPort(), OBJECTS, new Store() {
                @Override
                public void command(ShapingProxy proxy, int objects, int jobs) {
                    azurite.configureSystemProperties();
                    System.setProperty(AzureClientOptions.BLOB_ENDPOINT, proxied(proxy, endpoint));
                    Cli.Run run = InProcess.run("validate", "--json", "--recursive", "--jobs", Integer.toString(jobs),
                            "az://throughput/n" + objects + "/").exits(0);
                    assertEquals(objects, run.json().size(), run.stderr());
                }

                @Override
                public List<Callable<Long>> plain(ShapingProxy proxy, int objects) {
                    BlobContainerClient container = new BlobServiceClientBuilder().endpoint(proxied(proxy, endpoint))
                            .credential(new StorageSharedKeyCredential(Azurite.ACCOUNT, Azurite.KEY)).buildClient()
                            .getBlobContainerClient("throughput");
                    List<String> names = container.listBlobs(new ListBlobsOptions().setPrefix("n" + objects + "/"),
                            null).stream().map(BlobItem::getName).toList();
                    assertEquals(objects, names.size());
                    List<Callable<Long>> reads = new ArrayList<>();
                    for (String name : names) {
                        reads.add(() -> {
                            CountingSink sink = new CountingSink();
                            container.getBlobClient(name).downloadStreamWithResponse(sink, new BlobRange(0, (long)
                                    PREFETCH), null, null, false, null, Context.NONE);
                            return sink.count;
                        });
                    }
                    return reads;
                }
            });
        } finally {
            Azurite.clearSystemProperties();
        }
    }

    @Test
    void hub() throws Exception {
        try (FakeHub hub = new FakeHub()) {
            for (int files : IntStream.of(HUB_FILES).distinct().toArray()) {
                ShardedWriter writer = ShardedWriter.create(100);
                for (int i = 0; i < files; i++) {
                    writer.tensor("t" + i, DType.U8, new long[] {64}, new byte[64]);
                }
                Path folder = Files.createDirectories(dir.resolve("n" + files));
                Map<String, byte[]> published = new LinkedHashMap<>();
                for (Path f : writer.writeTo(folder)) {
                    published.put(f.getFileName().toString(), Files.readAllBytes(f));
                }
                hub.repository("acme/n" + files, published);
            }
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .followRedirects(HttpClient.Redirect.NORMAL).build();
            measure("the Hugging Face Hub (FakeHub; redirects to its CDN, which the proxy does not hold)",
                    hub.endpoint().getPort(), HUB_FILES, new Store() {
                        @Override
                        public void command(ShapingProxy proxy, int files, int jobs) {
                            Cli.Run run = InProcess.run(Map.of("HF_ENDPOINT", "http://127.0.0.1:" + proxy.port()),
                                    "validate", "--json", "--jobs", Integer.toString(jobs), "hf://acme/n" + files)
                                    .exits(0);
                            assertEquals(files + 1, run.json().size(), "the shards, then their checkpoint: "
                                    + run.stderr());
                        }

                        @Override
                        public List<Callable<Long>> plain(ShapingProxy proxy, int files) throws Exception {
                            String base = "http://127.0.0.1:" + proxy.port() + "/acme/n" + files + "/resolve/main/";
                            JsonNode index = JSON.readTree(getWhole(http, URI.create(base
                                    + "model.safetensors.index.json")));
                            List<String> shards = new ArrayList<>();
                            index.path("weight_map").forEach(shard -> {
                                if (!shards.contains(shard.asString())) {
                                    shards.add(shard.asString());
                                }
                            });
                            assertEquals(files, shards.size());
                            List<Callable<Long>> reads = new ArrayList<>();
                            for (String shard : shards) {
                                URI resolve = URI.create(base + shard);
                                reads.add(() -> ranged(http, resolve));
                            }
                            return reads;
                        }
                    });
        }
    }

    /** Warms both up, then runs both at each number of jobs and prints the figures. */
    private static void measure(String what, int upstreamPort, int[] objects, Store store) throws Exception {
        StringBuilder report = new StringBuilder(String.format(Locale.ROOT, "BACKEND THROUGHPUT, %s, %d ms per"
                + " request, load %s:%n", what, DELAY_MILLIS, MachineLoad.now()));
        try (ShapingProxy slow = ShapingProxy.delaying(upstreamPort, Duration.ofMillis(DELAY_MILLIS),
                TimeSource.SYSTEM)) {
            // classes, the JIT, the store's caches: a JVM's start is measured apart (PrefixThroughputTest)
            plain(store, slow, objects[0], 16);
            store.command(slow, objects[0], 16);
            for (int i = 0; i < JOBS.length; i++) {
                int jobs = JOBS[i];
                slow.resetCounts();
                double limit = plain(store, slow, objects[i], jobs);
                String plainFlight = slow.flightReport();
                slow.resetCounts();
                long start = System.nanoTime();
                store.command(slow, objects[i], jobs);
                double ours = objects[i] / ((System.nanoTime() - start) / 1e9);
                report.append(String.format(Locale.ROOT, "  --jobs %2d, %,5d objects: validate %6.1f objects/s (%s),"
                        + " plain client %6.1f objects/s (%s), ratio %.2f; ideal %.0f; load %s%n", jobs, objects[i],
                        ours, slow.flightReport(), limit, plainFlight, ours / limit, jobs * 1000.0 / DELAY_MILLIS,
                        MachineLoad.now()));
            }
        }
        System.out.print(report);
    }

    /** @return objects per second of the plain client: its listing, then its reads from that many threads */
    private static double plain(Store store, ShapingProxy proxy, int objects, int threads) throws Exception {
        long start = System.nanoTime();
        List<Callable<Long>> reads = store.plain(proxy, objects);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (Callable<Long> read : reads) {
                done.add(pool.submit(read));
            }
            for (Future<Long> read : done) {
                assertTrue(read.get() > 0, "every read returns bytes");
            }
        } finally {
            pool.shutdown();
        }
        return objects / ((System.nanoTime() - start) / 1e9);
    }


    private static String name(int objects, int i) {
        return String.format(Locale.ROOT, "n%d/d%02d/m%04d.safetensors", objects, i % 25, i);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String proxied(ShapingProxy proxy, URI endpoint) {
        return "http://127.0.0.1:" + proxy.port() + endpoint.getPath();
    }

    /** One GET of the first {@link #PREFETCH} bytes, read whole. */
    private static long ranged(HttpClient http, URI url) throws IOException, InterruptedException {
        HttpResponse<InputStream> answer = http.send(HttpRequest.newBuilder(url)
                .header("Range", "bytes=0-" + (PREFETCH - 1)).build(), HttpResponse.BodyHandlers.ofInputStream());
        long read;
        try (InputStream body = answer.body()) {
            read = body.transferTo(OutputStream.nullOutputStream());
        }
        if (answer.statusCode() != 206 && answer.statusCode() != 200) {
            throw new IOException(url + " answered " + answer.statusCode());
        }
        return read;
    }

    /** One GET read whole, as text. */
    private static String getWhole(HttpClient http, URI url) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(url).build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException(url + " answered " + answer.statusCode() + ": " + answer.body());
        }
        return answer.body();
    }

    /** Counts what the Azure SDK writes to it and keeps nothing. */
    private static final class CountingSink extends OutputStream {
        private long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
