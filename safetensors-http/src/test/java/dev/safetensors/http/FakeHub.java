package dev.safetensors.http;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;

import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;

/**
 * Two WireMock servers on loopback playing the Hugging Face Hub and its CDN: the Hub's resolve endpoint answers
 * 302 with {@code X-Repo-Commit}, {@code X-Linked-Etag} and a signed CDN URL on another port; the CDN serves the
 * bytes with genuine ranges, a strong ETag and {@code If-Match}.
 */
final class FakeHub implements AutoCloseable {
    static final String TOKEN = "hf_secret_token_0123";
    static final String SIGNATURE = "SIGNED-SECRET";
    static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";
    static final String CDN_ETAG = "\"cdn-etag-1\"";

    final WireMockServer hub = server();
    final WireMockServer cdn = server();

    static WireMockServer server() {
        WireMockServer s = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort()
                .http2PlainDisabled(true).gzipDisabled(true).extensions(new RangeServingTransformer()));
        s.start();
        return s;
    }

    URI endpoint() {
        return URI.create(hub.baseUrl());
    }

    /** Settings for the fake: its endpoint, a token, short timeouts and near-instant retries. */
    HttpSettings.Builder settings() {
        return HttpSettings.builder().hubEndpoint(endpoint()).token(TOKEN)
                .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
                .maxRetries(3).backoff(Duration.ofMillis(1), Duration.ofSeconds(2));
    }

    /** Publishes {@code content} as {@code repo/path} on branch {@code main} at {@link #COMMIT}. */
    void publish(String repo, String path, byte[] content) {
        String id = "obj-" + Integer.toHexString((repo + "/" + path).hashCode());
        for (String revision : List.of("main", COMMIT)) {
            for (MappingBuilder method : List.of(get(urlPathEqualTo("/" + repo + "/resolve/" + revision + "/" + path)),
                    head(urlPathEqualTo("/" + repo + "/resolve/" + revision + "/" + path)))) {
                hub.stubFor(method.willReturn(aResponse()
                        .withStatus(302)
                        .withHeader("Location", cdn.baseUrl() + "/cdn/" + id + "?X-Amz-Signature=" + SIGNATURE)
                        .withHeader("X-Repo-Commit", COMMIT)
                        .withHeader("X-Linked-Etag", linkedEtag(content))
                        .withHeader("X-Linked-Size", String.valueOf(content.length))
                        .withHeader("ETag", linkedEtag(content))));
            }
        }
        cdn.stubFor(get(urlPathEqualTo("/cdn/" + id)).willReturn(aResponse().withStatus(200)
                .withHeader("ETag", CDN_ETAG).withBody(content).withTransformers(RangeServingTransformer.NAME)));
    }

    /**
     * Answers the listing {@code /api/{models|datasets|spaces}/NS/REPO/revision/{main,COMMIT}} with {@link #COMMIT}
     * and the given files, as the Hub's repository API does.
     *
     * @param repo  {@code NS/REPO}, or {@code datasets/NS/REPO} or {@code spaces/NS/REPO}
     * @param files every file of the repository
     */
    void listing(String repo, List<String> files) {
        String api = repo.startsWith("datasets/") || repo.startsWith("spaces/") ? repo : "models/" + repo;
        StringBuilder json = new StringBuilder("{\"id\":\"").append(repo).append("\",\"sha\":\"").append(COMMIT)
                .append("\",\"siblings\":[");
        for (int i = 0; i < files.size(); i++) {
            json.append(i == 0 ? "" : ",").append("{\"rfilename\":\"").append(files.get(i)).append("\"}");
        }
        json.append("]}");
        for (String revision : List.of("main", COMMIT)) {
            hub.stubFor(get(urlPathEqualTo("/api/" + api + "/revision/" + revision)).willReturn(aResponse()
                    .withStatus(200).withHeader("Content-Type", "application/json").withBody(json.toString())));
        }
    }

    /** Publishes every file of a repository and its listing. */
    void repository(String repo, java.util.Map<String, byte[]> files) {
        files.forEach((path, content) -> publish(repo, path, content));
        listing(repo, List.copyOf(new java.util.TreeSet<>(files.keySet())));
    }

    static String linkedEtag(byte[] content) {
        try {
            return "\"" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    List<LoggedRequest> hubRequests() {
        return hub.findAll(anyRequestedFor(anyUrl()));
    }

    List<LoggedRequest> cdnRequests() {
        return cdn.findAll(anyRequestedFor(anyUrl()));
    }

    void reset() {
        hub.resetAll();
        cdn.resetAll();
    }

    @Override
    public void close() {
        hub.stop();
        cdn.stop();
    }
}
