package dev.safetensors.gcs;

import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpRequestFactory;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.http.HttpTransport;
import com.google.cloud.TransportOptions;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.StorageOptions;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RequestCounter;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issues ranged media GETs for one object through the {@code Storage} client's own HTTP transport, credentials,
 * timeouts and headers ({@link HttpTransportOptions#getHttpRequestInitializer}), so that the status and headers of
 * every response can be checked, which {@code Storage.reader} does not allow. Thread-safe: each call is one
 * independent request.
 */
final class MediaClient {
    private static final System.Logger LOG = System.getLogger(GcsSource.class.getName());
    private static final Pattern JSON_MESSAGE = Pattern.compile("\"message\"\\s*:\\s*\"([^\"]{1,300})\"");
    private static final int ERROR_BODY_LIMIT = 1024;

    private final String name;
    private final GcsUri uri;
    private final String host;
    private final HttpTransport transport;
    private final HttpRequestFactory requests;
    private final RetryPolicy retry;
    private final RequestCounter counter;

    MediaClient(StorageOptions options, GcsUri uri, String name, RequestCounter counter) {
        TransportOptions transportOptions = options.getTransportOptions();
        if (!(transportOptions instanceof HttpTransportOptions)) {
            throw new IllegalArgumentException("GcsSource needs a Storage client that uses the JSON/HTTP transport"
                    + " (StorageOptions.http()); the gRPC transport does not expose response headers");
        }
        HttpTransportOptions http = (HttpTransportOptions) transportOptions;
        this.name = name;
        this.uri = uri;
        this.host = options.getHost();
        this.transport = http.getHttpTransportFactory().create();
        this.requests = transport.createRequestFactory(http.getHttpRequestInitializer(options));
        this.retry = RetryPolicy.of(options.getRetrySettings());
        this.counter = counter;
    }

    /**
     * One ranged GET of {@code length >= 1} bytes at {@code position}, retried as the policy allows until a
     * response arrives that is not a transient failure.
     *
     * @return the verified response, or {@code null} if the server says the position is at or past the end (416)
     */
    RangeResponse get(long position, long length, GenerationPin pin) throws IOException {
        long generation = pin.generationToSend();
        boolean learned = pin.learned();
        String url = MediaUrl.of(host, uri, generation);
        String range = "bytes=" + position + "-" + (position + length - 1);
        long started = System.nanoTime();
        counter.request();
        for (int attempt = 1; ; attempt++) {
            int tried = attempt;
            counter.exchange();
            HttpResponse response;
            try {
                response = execute(url, range);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, () -> "GET " + name + " " + range + " failed: " + e);
                waitOrGiveUp(attempt, started, range, e.toString(), () -> new IOException(name + ": GET " + range
                        + " failed after " + tried + " attempt(s): " + e.getMessage(), e));
                continue;
            }
            int status = response.getStatusCode();
            LOG.log(System.Logger.Level.DEBUG, () -> "GET " + name + " " + range
                    + (generation >= 0 ? " generation=" + generation : "") + " -> " + status + " "
                    + response.getHeaders().getContentRange() + " (" + response.getHeaders().getContentLength()
                    + " bytes)");
            if (status == 206 || status == 200) {
                return verified(response, status, position, length, pin);
            }
            if (status == 416) {
                RangeResponse.disconnect(response);
                return null;
            }
            IOException failure = StatusFailures.of(name, status, serverMessage(response), generation, learned, null);
            if (!RetryPolicy.isRetryableStatus(status)) {
                throw failure;
            }
            waitOrGiveUp(attempt, started, range, "HTTP " + status, () -> failure);
        }
    }

    private HttpRequest request(String url, String range) throws IOException {
        HttpRequest request = requests.buildGetRequest(new GenericUrl(url, true));
        request.getHeaders().setRange(range);
        // "identity": no compression on the wire, so Content-Range counts stored bytes.
        request.getHeaders().setAcceptEncoding("identity");
        request.setThrowExceptionOnExecuteError(false);
        request.setResponseReturnRawInputStream(true);
        // Leaves room for exactly one repeat: the credentials adapter's retry after refreshing an expired token.
        // Every other retry is this class's own, bounded by the policy.
        request.setNumberOfRetries(1);
        return request;
    }

    private HttpResponse execute(String url, String range) throws IOException {
        return request(url, range).execute();
    }

    private RangeResponse verified(HttpResponse response, int status, long position, long length, GenerationPin pin)
            throws IOException {
        try {
            ContentRange checked = ResponseChecks.verify(name, status, response.getHeaders(), position, length, pin);
            return new RangeResponse(checked, response);
        } catch (IOException | RuntimeException e) {
            RangeResponse.disconnect(response);
            throw e;
        }
    }

    private void waitOrGiveUp(int attempt, long started, String range, String why,
                              Supplier<IOException> failure)
            throws IOException {
        Duration delay = retry.delayAfter(attempt, System.nanoTime() - started);
        if (delay == null) {
            throw failure.get();
        }
        LOG.log(System.Logger.Level.WARNING, () -> "GET " + name + " " + range + " attempt " + attempt + " failed ("
                + why + "), retrying in " + delay.toMillis() + " ms (" + retry + ")");
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(name + ": interrupted while waiting to retry " + range);
        }
    }

    /** Reads at most 1 KiB of an error body for its message, then drops the connection. */
    private static String serverMessage(HttpResponse response) {
        try {
            InputStream in = response.getContent();
            if (in == null) {
                return "";
            }
            String body = new String(in.readNBytes(ERROR_BODY_LIMIT), StandardCharsets.UTF_8);
            Matcher m = JSON_MESSAGE.matcher(body);
            return SourceNames.clip(m.find() ? m.group(1) : body.trim());
        } catch (IOException e) {
            return "";
        } finally {
            RangeResponse.disconnect(response);
        }
    }

    /** Releases the transport created for this object. */
    void close() throws IOException {
        transport.shutdown();
    }
}
