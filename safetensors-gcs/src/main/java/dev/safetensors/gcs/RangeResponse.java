package dev.safetensors.gcs;

import com.google.api.client.http.HttpResponse;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RequestCounter;
import dev.safetensors.spi.VerifiedRangeChannel;

import java.io.IOException;

/**
 * A media GET whose status and headers passed {@link ResponseChecks}, with its body not yet read.
 *
 * @param range    the verified range: the body must be exactly {@code range.length()} bytes
 * @param response the open response
 */
record RangeResponse(ContentRange range, HttpResponse response) {

    /**
     * @return a channel over exactly the verified bytes; closing it early or after a failure disconnects the
     *         response instead of draining it
     */
    VerifiedRangeChannel body(String name, RequestCounter counter) throws IOException {
        try {
            return new VerifiedRangeChannel(name, response.getContent(), range.length(), this::abort, counter);
        } catch (IOException | RuntimeException e) {
            abort();
            throw e;
        }
    }

    /** Drops the connection without reading what is left of the body. */
    void abort() {
        disconnect(response);
    }

    static void disconnect(HttpResponse response) {
        try {
            response.disconnect();
        } catch (IOException e) {
            // The connection is being thrown away; a failure to close it changes nothing for the caller.
            System.getLogger(GcsSource.class.getName()).log(System.Logger.Level.DEBUG,
                    "disconnect failed: " + e);
        }
    }
}
