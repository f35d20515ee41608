package dev.safetensors.cli;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;

import dev.safetensors.fixtures.FolderServer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;

/**
 * WireMock playing the Hugging Face Hub's resolve endpoint ({@code HF_ENDPOINT}): each published file answers 302
 * with {@code X-Repo-Commit} and {@code X-Linked-Etag} (the file's SHA-256, as the Hub reports LFS files), and
 * redirects to a {@link FolderServer} playing the CDN, which serves the bytes with real ranges. Anything not
 * published is a 404, as on the Hub.
 */
final class FakeHub {
    static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

    private final WireMockServer hub = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1").dynamicPort()
            .http2PlainDisabled(true).gzipDisabled(true));
    private final Path files;
    private final FolderServer cdn;

    /**
     * @param files the folder the CDN serves; files are published from it by name
     * @throws Exception if a server does not start
     */
    FakeHub(Path files) throws Exception {
        this.files = files;
        hub.start();
        cdn = new FolderServer(files);
    }

    /** @return the value for {@code HF_ENDPOINT} */
    String endpoint() {
        return hub.baseUrl();
    }

    /**
     * Publishes the CDN folder's file {@code repo/path} as {@code path} of {@code repo} on branch {@code main}, at
     * {@link #COMMIT}.
     *
     * @param repo {@code OWNER/REPO}
     * @param path the file's path in the repository
     */
    void publish(String repo, String path) {
        String sha256 = Fixtures.sha256(files.resolve(repo).resolve(path));
        for (String revision : List.of("main", COMMIT)) {
            for (MappingBuilder method : List.of(get(urlPathEqualTo("/" + repo + "/resolve/" + revision + "/" + path)),
                    head(urlPathEqualTo("/" + repo + "/resolve/" + revision + "/" + path)))) {
                hub.stubFor(method.willReturn(aResponse()
                        .withStatus(302)
                        .withHeader("Location", cdn.base().resolve(repo + "/" + path) + "?X-Amz-Signature=signed")
                        .withHeader("X-Repo-Commit", COMMIT)
                        .withHeader("X-Linked-Etag", "\"" + sha256 + "\"")));
            }
        }
    }

    /**
     * Publishes files of {@code repo} (each from the CDN folder) and the repository listing that names them, as the
     * Hub's {@code /api/models/REPO/revision/REV} answers it: the commit and every file.
     *
     * @param repo  {@code OWNER/REPO}
     * @param paths the repository's files
     */
    void repository(String repo, List<String> paths) {
        StringBuilder json = new StringBuilder("{\"sha\":\"" + COMMIT + "\",\"siblings\":[");
        for (int i = 0; i < paths.size(); i++) {
            if (Files.exists(files.resolve(repo).resolve(paths.get(i)))) {
                publish(repo, paths.get(i));
            }
            json.append(i == 0 ? "" : ",").append("{\"rfilename\":\"").append(paths.get(i)).append("\"}");
        }
        json.append("]}");
        for (String revision : List.of("main", COMMIT)) {
            hub.stubFor(get(urlPathEqualTo("/api/models/" + repo + "/revision/" + revision)).willReturn(aResponse()
                    .withStatus(200).withHeader("Content-Type", "application/json").withBody(json.toString())));
        }
    }

    /**
     * Makes a published file disappear once it has been read once: its first request is redirected to the CDN as
     * {@link #publish} does, every later one is a 404, as when a repository is deleted while a client reads it.
     *
     * @param repo {@code OWNER/REPO}
     * @param path the file's path in the repository
     */
    void withdrawAfterFirstRead(String repo, String path) {
        String scenario = "withdraw " + repo + "/" + path;
        for (String revision : List.of("main", COMMIT)) {
            String url = "/" + repo + "/resolve/" + revision + "/" + path;
            hub.stubFor(get(urlPathEqualTo(url)).inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                    .willSetStateTo("withdrawn").willReturn(aResponse().withStatus(302)
                            .withHeader("Location", cdn.base().resolve(repo + "/" + path) + "?X-Amz-Signature=signed")
                            .withHeader("X-Repo-Commit", COMMIT)));
            hub.stubFor(get(urlPathEqualTo(url)).inScenario(scenario).whenScenarioStateIs("withdrawn")
                    .willReturn(aResponse().withStatus(404).withHeader("X-Error-Code", "RepoNotFound")));
        }
    }

    /** @return the CDN's base URL, which serves the folder's files directly too */
    java.net.URI cdnBase() {
        return cdn.base();
    }

    /** @return requests the Hub's API and resolve endpoint answered */
    int hubRequests() {
        return hub.getAllServeEvents().size();
    }

    /** @return requests the CDN answered */
    int cdnRequests() {
        return cdn.requestCount();
    }

    /** @throws Exception if a server does not stop */
    void stop() throws Exception {
        hub.stop();
        cdn.close();
    }
}
