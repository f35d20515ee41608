package dev.safetensors.gcs;

import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpContent;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpRequestFactory;
import com.google.api.client.http.HttpTransport;
import com.google.cloud.TransportOptions;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.StorageOptions;

import java.io.IOException;

/**
 * Requests to the Cloud Storage JSON API sent through a {@code Storage} client's own HTTP transport, credentials,
 * timeouts and headers ({@link HttpTransportOptions#getHttpRequestInitializer}), for the requests the client's API
 * does not let this backend check (ranged media reads) or control (uploads, whose every attempt the shared
 * {@link dev.safetensors.spi.RetriedRequest} layer decides). Each request is one attempt that hands back whatever
 * status it gets. Thread-safe.
 */
final class JsonApiTransport {
    private final String host;
    private final HttpTransport transport;
    private final HttpRequestFactory requests;

    /**
     * @param options the client's options
     * @param user    who needs the transport, for the message when the client has none
     * @throws IllegalArgumentException if the client uses the gRPC transport
     */
    JsonApiTransport(StorageOptions options, String user) {
        TransportOptions transportOptions = options.getTransportOptions();
        if (!(transportOptions instanceof HttpTransportOptions http)) {
            throw new IllegalArgumentException(user + " needs a Storage client that uses the JSON/HTTP transport"
                    + " (StorageOptions.http()); the gRPC transport does not expose response headers");
        }
        String configured = options.getHost();
        this.host = configured.endsWith("/") ? configured.substring(0, configured.length() - 1) : configured;
        this.transport = http.getHttpTransportFactory().create();
        this.requests = transport.createRequestFactory(http.getHttpRequestInitializer(options));
    }

    /** @return the storage host, such as {@code https://storage.googleapis.com}, without a trailing slash */
    String host() {
        return host;
    }

    /**
     * @param method  the HTTP method
     * @param url     the whole URL, already percent-encoded: it is sent as it is
     * @param content the body, or {@code null}
     * @return a request that does not throw for an error status and repeats itself at most once
     * @throws IOException if the request cannot be built
     */
    HttpRequest request(String method, String url, HttpContent content) throws IOException {
        HttpRequest request = requests.buildRequest(method, new GenericUrl(url, true), content);
        request.setThrowExceptionOnExecuteError(false);
        // Leaves room for exactly one repeat: the credentials adapter's retry after refreshing an expired token.
        // Every other retry is the shared layer's, bounded by its policy.
        request.setNumberOfRetries(1);
        return request;
    }

    /**
     * Releases the transport.
     *
     * @throws IOException if it fails to shut down
     */
    void close() throws IOException {
        transport.shutdown();
    }
}
