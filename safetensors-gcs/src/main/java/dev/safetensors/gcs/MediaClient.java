package dev.safetensors.gcs;

import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpResponse;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.StorageOptions;
import dev.safetensors.spi.RangeAnswer;
import dev.safetensors.spi.RequestCounter;

import java.io.IOException;
import java.io.InputStream;

/**
 * Sends ranged media GETs for one object through the {@code Storage} client's own HTTP transport, credentials,
 * timeouts and headers ({@link HttpTransportOptions#getHttpRequestInitializer}), and hands back status, headers and
 * the raw body, which {@code Storage.reader} does not allow. One attempt per call: retries are the shared layer's.
 * Thread-safe: each call is one independent request.
 */
final class MediaClient {
    private static final System.Logger LOG = System.getLogger(GcsSource.class.getName());

    private final String name;
    private final GcsUri uri;
    private final JsonApiTransport transport;
    private final RequestCounter counter;

    MediaClient(StorageOptions options, GcsUri uri, String name, RequestCounter counter) {
        this.name = name;
        this.uri = uri;
        this.transport = new JsonApiTransport(options, "GcsSource");
        this.counter = counter;
    }

    /**
     * One ranged GET of {@code length >= 1} bytes at {@code position}, conditional on {@code generation}.
     *
     * @param generation the generation to read and require, or -1 for the live object
     * @return the answer, whatever its status
     * @throws IOException when no answer arrived
     */
    RangeAnswer get(long position, long length, long generation) throws IOException {
        String url = MediaUrl.of(transport.host(), uri, generation);
        String range = "bytes=" + position + "-" + (position + length - 1);
        counter.exchange();
        HttpResponse response;
        try {
            response = request(url, range).execute();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "GET " + name + " " + range + " failed: " + e);
            throw e;
        }
        HttpHeaders headers = response.getHeaders();
        LOG.log(System.Logger.Level.DEBUG, () -> "GET " + name + " " + range
                + (generation >= 0 ? " generation=" + generation : "") + " -> " + response.getStatusCode() + " "
                + headers.getContentRange() + " (" + headers.getContentLength() + " bytes)");
        InputStream body;
        try {
            body = response.getContent();
        } catch (IOException e) {
            disconnect(response);
            throw e;
        }
        return new RangeAnswer(response.getStatusCode(), headers::getFirstHeaderStringValue,
                body == null ? InputStream.nullInputStream() : body, () -> disconnect(response));
    }

    private HttpRequest request(String url, String range) throws IOException {
        HttpRequest request = transport.request("GET", url, null);
        request.getHeaders().setRange(range);
        // "identity": no compression on the wire, so Content-Range counts stored bytes.
        request.getHeaders().setAcceptEncoding("identity");
        request.setResponseReturnRawInputStream(true);
        return request;
    }

    /** Drops the connection without reading what is left of the body. */
    private static void disconnect(HttpResponse response) {
        try {
            response.disconnect();
        } catch (IOException e) {
            // The connection is being thrown away; a failure to close it changes nothing for the caller.
            LOG.log(System.Logger.Level.DEBUG, () -> "disconnect failed: " + e);
        }
    }

    /** Releases the transport created for this object. */
    void close() throws IOException {
        transport.close();
    }
}
