package dev.safetensors.gcs;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

/**
 * A WireMock server on 127.0.0.1 standing in for Cloud Storage, and {@code Storage} clients pointed at it with no
 * credentials, project "test" and a given number of attempts, so no test can reach the internet.
 */
final class GcsTestServer implements AutoCloseable {
    final WireMockServer wireMock;

    GcsTestServer() {
        // gzip off: WireMock would otherwise compress ranged bodies and the lengths would no longer match.
        wireMock = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort().gzipDisabled(true)
                .extensions(new FakeGcsObjects()));
        wireMock.start();
    }

    String host() {
        return "http://127.0.0.1:" + wireMock.port();
    }

    Storage storage(int maxAttempts) {
        return storage(host(), maxAttempts);
    }

    /**
     * @param host        a loopback server playing Cloud Storage
     * @param maxAttempts attempts per request
     * @return a client for it, configured as this harness's own
     */
    static Storage storage(String host, int maxAttempts) {
        RetrySettings retry = RetrySettings.newBuilder()
                .setMaxAttempts(maxAttempts)
                .setInitialRetryDelayDuration(Duration.ofMillis(10))
                .setRetryDelayMultiplier(2.0)
                .setMaxRetryDelayDuration(Duration.ofMillis(50))
                .setTotalTimeoutDuration(Duration.ofSeconds(10))
                .setInitialRpcTimeoutDuration(Duration.ofSeconds(10))
                .setMaxRpcTimeoutDuration(Duration.ofSeconds(10))
                .build();
        return StorageOptions.http()
                .setHost(host)
                .setProjectId("test")
                .setCredentials(NoCredentials.getInstance())
                .setRetrySettings(retry)
                .build()
                .getService();
    }

    /** @return the {@code Range} header of every request the server saw, oldest first ("-" for none) */
    List<String> ranges() {
        return inArrivalOrder().stream().map(e -> {
            String range = e.getRequest().getHeader("Range");
            return range == null ? "-" : range;
        }).collect(Collectors.toList());
    }

    /** @return the raw URL (path and query) of every request the server saw, oldest first */
    List<String> urls() {
        return inArrivalOrder().stream().map(e -> e.getRequest().getUrl()).collect(Collectors.toList());
    }

    /**
     * @return every request the server saw, oldest first, as {@code METHOD URL} with the URL's path and query as
     *         sent
     */
    List<String> requests() {
        return inArrivalOrder().stream().map(e -> e.getRequest().getMethod().getName() + " "
                + e.getRequest().getUrl()).collect(Collectors.toList());
    }

    /**
     * @param header a header name
     * @return its value in every request the server saw, oldest first ("-" for none)
     */
    List<String> headers(String header) {
        return inArrivalOrder().stream().map(e -> {
            String value = e.getRequest().getHeader(header);
            return value == null ? "-" : value;
        }).collect(Collectors.toList());
    }

    /** The journal's own order, newest first, reversed: arrival times alone tie within a millisecond. */
    private List<ServeEvent> inArrivalOrder() {
        List<ServeEvent> events = new ArrayList<>(wireMock.getAllServeEvents());
        Collections.reverse(events);
        return events;
    }


    @Override
    public void close() {
        wireMock.stop();
    }
}
