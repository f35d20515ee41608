package dev.safetensors.http;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;

/**
 * The answer at the end of a redirect chain, with what the chain's hops said about the object's identity.
 *
 * @param response   the final answer
 * @param body       its body, not yet read, under the read timeout: read this, not {@code response.body()}
 * @param url        the URL that gave it (may hold a signed query: redact before printing)
 * @param repoCommit the Hub's {@code X-Repo-Commit} from any hop, or {@code null}
 * @param linkedEtag the Hub's {@code X-Linked-Etag} from any hop, or {@code null}
 */
record FinalResponse(HttpResponse<InputStream> response, InputStream body, URI url, String repoCommit,
                     String linkedEtag) {

    int status() {
        return response.statusCode();
    }

    String header(String name) {
        return response.headers().firstValue(name).orElse(null);
    }
}
