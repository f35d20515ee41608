package dev.safetensors.azure;

import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpHeaders;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.safetensors.Location;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.UploadOptions;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The upload's memory bound: with {@code parallelism} parts, a buffer being filled and the blocks in flight are at
 * most {@code parallelism}, so {@link ObjectUpload#write} waits while that many are taken. Played by an HTTP client
 * that holds every Put Block until the test lets it go.
 */
class AzureObjectWriterMemoryTest {
    private static final int PART = UploadOptions.MIN_PART_SIZE;
    private static final int PARALLELISM = 2;
    private static final int PARTS = 5;
    /** Only a guard against a writer that never returns. */
    private static final long HANG_GUARD_SECONDS = 60;

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostInFlight = new AtomicInteger();
    private final AtomicInteger blocks = new AtomicInteger();

    @Test
    void writeWaitsWhileParallelismPartsAreHeldAndNoMoreBlocksAreInFlight() throws Exception {
        BlobServiceClient client = new BlobServiceClientBuilder().endpoint("http://127.0.0.1:9/acct")
                .credential(new StorageSharedKeyCredential("acct", Base64.getEncoder().encodeToString(new byte[32])))
                .httpClient(new HoldingClient()).buildClient();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread writer;
        try (AzureObjectWriter provider = new AzureObjectWriter(client);
             ObjectUpload upload = provider.create(Location.parse("az://models/m.safetensors"),
                     UploadOptions.DEFAULT.withParts(PART, PARALLELISM))) {
            writer = new Thread(() -> {
                try {
                    upload.write(ByteBuffer.wrap(new byte[PART * PARTS + 1]));
                    upload.commit();
                } catch (Throwable e) {
                    failed.set(e);
                }
            }, "writer");
            writer.start();
            // one part is being filled or uploads in each of the PARALLELISM buffers: once both are blocks held
            // by the client, the writer waits for a permit and nothing moves until the client lets them go
            while (!(writer.getState() == Thread.State.WAITING && inFlight.get() == PARALLELISM)) {
                assertTrue(writer.isAlive(), "the writer ended early: " + failed.get());
                Thread.onSpinWait();
            }
            assertEquals(PARALLELISM, blocks.get(), "the writer waits with " + PARALLELISM + " blocks sent");
            release.countDown();
            writer.join(TimeUnit.SECONDS.toMillis(HANG_GUARD_SECONDS));
        }
        assertNull(failed.get());
        assertEquals(PARTS + 1, blocks.get());
        assertEquals(PARALLELISM, mostInFlight.get(), "never more than " + PARALLELISM + " blocks in flight");
    }

    /** Answers Get Blob Properties with 404, holds each Put Block until released, and answers every PUT 201. */
    private final class HoldingClient implements HttpClient {
        @Override
        public Mono<HttpResponse> send(HttpRequest request) {
            return Mono.fromCallable(() -> sendSync(request, Context.NONE));
        }

        @Override
        public HttpResponse sendSync(HttpRequest request, Context context) {
            if (request.getHttpMethod() == HttpMethod.HEAD) {
                return new Answer(request, 404);
            }
            String query = request.getUrl().getQuery();
            if (query != null && query.startsWith("comp=block&")) {
                blocks.incrementAndGet();
                mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                try {
                    release.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    inFlight.decrementAndGet();
                }
            }
            return new Answer(request, 201);
        }
    }

    /** An answer with a status, no headers and no body. */
    private static final class Answer extends HttpResponse {
        private final int status;

        Answer(HttpRequest request, int status) {
            super(request);
            this.status = status;
        }

        @Override
        public int getStatusCode() {
            return status;
        }

        @Override
        @Deprecated
        public String getHeaderValue(String name) {
            return null;
        }

        @Override
        public HttpHeaders getHeaders() {
            return new HttpHeaders();
        }

        @Override
        public Flux<ByteBuffer> getBody() {
            return Flux.empty();
        }

        @Override
        public Mono<byte[]> getBodyAsByteArray() {
            return Mono.just(new byte[0]);
        }

        @Override
        public Mono<String> getBodyAsString() {
            return Mono.just("");
        }

        @Override
        public Mono<String> getBodyAsString(Charset charset) {
            return Mono.just("");
        }
    }
}
