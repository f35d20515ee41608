package dev.safetensors.http;

import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.RepositoryCheckpoint;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Listing the checkpoints of a Hub repository against the fake Hub: one request, whatever the layout. */
class HubRepositoryTest {
    private static final FakeHub HUB = new FakeHub();
    private static final String C = FakeHub.COMMIT;
    private final HubRepository repositories = new HubRepository(FakeHubSettings.of(HUB).build());

    @BeforeEach
    void reset() {
        HUB.reset();
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    @Test
    void aSingleFileModelIsListedWithOneRequestAndPinnedToTheCommit() throws Exception {
        HUB.listing("acme/single", List.of("README.md", "config.json", "model.safetensors"));
        RepositoryListing l = repositories.list(Location.parse("hf://acme/single"));
        assertEquals("acme/single", l.repository());
        assertEquals(C, l.commit());
        assertEquals(List.of(new RepositoryCheckpoint("", Location.parse("hf://acme/single@" + C + "/model.safetensors"),
                false, Optional.of(Location.parse("hf://acme/single@" + C + "/config.json")))), l.checkpoints());
        assertEquals(1, l.cost().requests());
        List<LoggedRequest> hub = HUB.hubRequests();
        assertEquals(1, hub.size());
        assertEquals("/api/models/acme/single/revision/main", hub.get(0).getUrl());
        assertEquals("Bearer " + FakeHub.TOKEN, hub.get(0).getHeader("Authorization"));
    }

    @Test
    void aSingleFileWinsOverAnIndexInTheSameFolder() throws Exception {
        HUB.listing("acme/both", List.of("model.safetensors", "model.safetensors.index.json"));
        RepositoryCheckpoint only = repositories.list(Location.parse("hf://acme/both")).checkpoints().get(0);
        assertEquals(Location.parse("hf://acme/both@" + C + "/model.safetensors"), only.file());
    }

    @Test
    void aDiffusersRepositoryListsEachComponentMainModuleFirst() throws Exception {
        HUB.listing("acme/sd", List.of("model_index.json", "scheduler/scheduler_config.json",
                "text_encoder/config.json", "text_encoder/model.safetensors",
                "text_encoder_2/model.safetensors.index.json", "text_encoder_2/model-00001-of-00002.safetensors",
                "text_encoder_2/model-00002-of-00002.safetensors", "tokenizer/vocab.json",
                "transformer/diffusion_pytorch_model.safetensors.index.json",
                "transformer/diffusion_pytorch_model-00001-of-00003.safetensors", "vae/config.json",
                "vae/diffusion_pytorch_model.safetensors", "vae/diffusion_pytorch_model.fp16.safetensors"));
        RepositoryListing l = repositories.list(Location.parse("hf://acme/sd@main"));
        assertEquals(List.of("transformer", "text_encoder", "text_encoder_2", "vae"),
                l.checkpoints().stream().map(RepositoryCheckpoint::folder).toList());
        assertEquals(Location.parse("hf://acme/sd@" + C + "/transformer/diffusion_pytorch_model.safetensors.index.json"),
                l.checkpoints().get(0).file());
        assertTrue(l.checkpoints().get(0).sharded());
        assertEquals(Optional.empty(), l.checkpoints().get(0).config());
        assertEquals(Location.parse("hf://acme/sd@" + C + "/vae/diffusion_pytorch_model.safetensors"),
                l.checkpoints().get(3).file());
        assertEquals(Optional.of(Location.parse("hf://acme/sd@" + C + "/vae/config.json")), l.checkpoints().get(3).config());
        assertEquals(new SourceStatistics(1, l.cost().bytesRead(), 1), l.cost(), "one request for every component");
    }

    @Test
    void aFolderLocationListsThatFolderAlone() throws Exception {
        HUB.listing("acme/sd", List.of("unet/diffusion_pytorch_model.safetensors", "vae/diffusion_pytorch_model.safetensors"));
        RepositoryListing l = repositories.list(Location.parse("hf://acme/sd/vae"));
        assertEquals(1, l.checkpoints().size());
        assertEquals("vae", l.checkpoints().get(0).folder());
    }

    @Test
    void datasetsAndEncodedRevisionsAreListedUnderTheirOwnPaths() throws Exception {
        HUB.listing("datasets/acme/data", List.of("model.safetensors"));
        RepositoryListing l = repositories.list(Location.parse("hf://datasets/acme/data"));
        assertEquals("datasets/acme/data", l.repository());
        assertEquals(Location.parse("hf://datasets/acme/data@" + C + "/model.safetensors"), l.checkpoints().get(0).file());

        HUB.hub().stubFor(get(urlPathEqualTo("/api/models/acme/pr/revision/refs%2Fpr%2F1")).willReturn(aResponse()
                .withStatus(200).withBody("{\"sha\":\"" + C + "\",\"siblings\":[{\"rfilename\":\"model.safetensors\"}]}")));
        RepositoryListing pr = repositories.list(Location.parse("hf://acme/pr@refs%2Fpr%2F1"));
        assertEquals(C, pr.commit());
    }

    @Test
    void aRepositoryWithoutCheckpointsListsNone() throws Exception {
        HUB.listing("acme/empty", List.of("README.md", "pytorch_model.bin"));
        assertEquals(List.of(), repositories.list(Location.parse("hf://acme/empty")).checkpoints());
    }

    @Test
    void aMissingRepositoryIsNotFoundAndAGatedOneAccessDenied() {
        NoSuchFileException missing = assertThrows(NoSuchFileException.class,
                () -> repositories.list(Location.parse("hf://acme/absent@v1")));
        assertEquals(ErrorCode.NOT_FOUND, ErrorCode.of(missing));
        HUB.hub().stubFor(get(urlPathEqualTo("/api/models/acme/gated/revision/main")).willReturn(aResponse()
                .withStatus(403)));
        AccessDeniedException gated = assertThrows(AccessDeniedException.class,
                () -> repositories.list(Location.parse("hf://acme/gated")));
        assertEquals(ErrorCode.ACCESS_DENIED, ErrorCode.of(gated));
    }

    @Test
    void anAnswerThatIsNotAListingIsAServerError() {
        for (String body : List.of("[]", "{\"sha\":\"x\"}", "{\"siblings\":[1]}", "{\"siblings\":[]} x",
                "{\"siblings\":[],\"siblings\":[]}", "{\"a\":\"\\ud800\",\"siblings\":[]}", "{\"siblings\":[],}")) {
            HUB.hub().stubFor(get(urlPathEqualTo("/api/models/acme/bad/revision/main")).willReturn(aResponse()
                    .withStatus(200).withBody(body)));
            StorageException e = assertThrows(StorageException.class,
                    () -> repositories.list(Location.parse("hf://acme/bad")), body);
            assertEquals(ErrorCode.SERVER_ERROR, e.code(), body);
        }
    }

    @Test
    void anAnswerThatIsNotUtf8OrTooDeepIsAServerError() {
        // '{' then 00 00 00 00 04 00 00 00: jackson's detection would read it as UTF-32; here it is malformed UTF-8
        byte[] utf32Lookalike = {'{', 0, 0, 0, 0, 4, 0, 0, 0, 'm', 'a', 'p', '"', ':', '[', ']', '}'};
        byte[] latin1 = "{\"siblings\":[{\"rfilename\":\"caf\u00e9\"}]}".getBytes(StandardCharsets.ISO_8859_1);
        byte[] deep = ("{\"x\":" + "[".repeat(100) + "]".repeat(100) + ",\"siblings\":[]}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] nestedDuplicate = "{\"siblings\":[{\"rfilename\":\"a\",\"rfilename\":\"b\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        for (byte[] body : List.of(utf32Lookalike, latin1, deep, nestedDuplicate)) {
            HUB.hub().stubFor(get(urlPathEqualTo("/api/models/acme/bytes/revision/main")).willReturn(aResponse()
                    .withStatus(200).withBody(body)));
            StorageException e = assertThrows(StorageException.class,
                    () -> repositories.list(Location.parse("hf://acme/bytes")));
            assertEquals(ErrorCode.SERVER_ERROR, e.code(), e.getMessage());
        }
    }

    @Test
    void aListingOfMoreCheckpointsThanTheCapIsRefusedAfterOneRequest() throws Exception {
        List<String> files = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            files.add("f" + i + "/model.safetensors");
        }
        HUB.listing("acme/many", files);
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> repositories.list(Location.parse("hf://acme/many")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertTrue(e.getMessage().contains(String.valueOf(HubRepository.MAX_LISTING_CHECKPOINTS)), e.getMessage());
        assertEquals(1, HUB.hubRequests().size());
        assertEquals(0, HUB.cdnRequests().size());

        files.subList(HubRepository.MAX_LISTING_CHECKPOINTS - 1, files.size()).clear();
        HUB.listing("acme/enough", files);
        assertEquals(HubRepository.MAX_LISTING_CHECKPOINTS - 1,
                repositories.list(Location.parse("hf://acme/enough")).checkpoints().size());
    }

    @Test
    void aMalformedLocationIsAnInvalidSourceWithoutARequest() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> repositories.list(Location.parse("hf://gpt2")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertEquals(0, HUB.hubRequests().size());
    }

    /** A client whose retries wait on a manual clock: three attempts, the waits recorded, no real time. */
    private static HubRepository retrying(ManualTime time) {
        return new HubRepository(FakeHubSettings.of(HUB)
                .remotePolicy(RemotePolicy.builder().maxAttempts(3).time(time).build()).build());
    }

    /** Answers the first request to {@code url} with {@code status} and a Retry-After of one second, once. */
    private static void onceUnavailable(com.github.tomakehurst.wiremock.client.MappingBuilder request, int status) {
        HUB.hub().stubFor(request.atPriority(1).inScenario("once").whenScenarioStateIs(Scenario.STARTED)
                .willSetStateTo("answered").willReturn(aResponse().withStatus(status).withHeader("Retry-After", "1")));
    }

    @Test
    void aRevisionListingAnswered503IsAskedAgainAfterRetryAfter() throws Exception {
        HUB.listing("acme/single", List.of("model.safetensors"));
        onceUnavailable(get(urlPathEqualTo("/api/models/acme/single/revision/main")), 503);
        ManualTime time = new ManualTime();
        RepositoryListing l = retrying(time).list(Location.parse("hf://acme/single"));
        assertEquals(1, l.checkpoints().size());
        assertEquals(2, HUB.hubRequests().size());
        assertEquals(1, l.cost().requests(), "one listing, asked twice");
        assertEquals(2, l.cost().exchanges());
        assertEquals(List.of(Duration.ofSeconds(1)), time.sleeps(), "the Hub's Retry-After, on the policy's clock");
    }

    @Test
    void aRevisionListingThatKeepsFailingEndsAfterThePolicysAttempts() {
        HUB.hub().stubFor(get(urlPathEqualTo("/api/models/acme/down/revision/main"))
                .willReturn(aResponse().withStatus(502)));
        ManualTime time = new ManualTime();
        StorageException e = assertThrows(StorageException.class,
                () -> retrying(time).list(Location.parse("hf://acme/down")));
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertEquals(3, HUB.hubRequests().size());
        assertEquals(2, time.sleeps().size());
    }

    @Test
    void aMissingRepositoryIsFinalAtOnce() {
        ManualTime time = new ManualTime();
        assertThrows(NoSuchFileException.class, () -> retrying(time).list(Location.parse("hf://acme/absent")));
        assertEquals(1, HUB.hubRequests().size());
        assertEquals(List.of(), time.sleeps());
    }

    @Test
    void aHeadAnswered429IsAskedAgain() throws Exception {
        byte[] content = "weights".getBytes(StandardCharsets.UTF_8);
        HUB.publish("acme/single", "model.safetensors", content);
        onceUnavailable(head(urlPathEqualTo("/acme/single/resolve/main/model.safetensors")), 429);
        ManualTime time = new ManualTime();
        HubFileMetadata meta = retrying(time).metadata(Location.parse("hf://acme/single/model.safetensors"));
        assertEquals(FakeHub.COMMIT, meta.commit());
        assertEquals(List.of(Duration.ofSeconds(1)), time.sleeps());
    }
}
