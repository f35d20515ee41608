package dev.safetensors.azure;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.matching.RequestPatternBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A WireMock server that plays a Blob Storage account for {@link AzureObjectWriter}: the requests an object takes,
 * and how the writer codes a refusal, a failing service, a changed checksum, and what it never shows.
 */
class AzureObjectWriterMisbehaviourTest {
    private static final String ACCOUNT = "acct";
    private static final String KEY = Base64.getEncoder().encodeToString("key-that-never-shows-0123456789".getBytes());
    private static final String SAS_SIGNATURE = "SAS-SIGNATURE-NEVER-SHOWN";
    private static final String PATH = "/" + ACCOUNT + "/models/m.safetensors";
    private static final Location OBJECT = Location.parse("az://models/m.safetensors");
    private static final int PART = UploadOptions.MIN_PART_SIZE;

    private static WireMockServer server;
    private final ManualTime time = new ManualTime();

    @BeforeAll
    static void start() {
        server = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort());
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    @BeforeEach
    void reset() {
        server.resetAll();
        server.stubFor(head(urlPathEqualTo(PATH)).willReturn(aResponse().withStatus(404)
                .withHeader("x-ms-error-code", "BlobNotFound")));
        server.stubFor(putBlob().willReturn(aResponse().withStatus(201)));
        server.stubFor(putBlock().willReturn(aResponse().withStatus(201)));
        server.stubFor(putBlockList().willReturn(aResponse().withStatus(201)));
    }

    private AzureObjectWriter writer(AzureClientOptions.Builder credential) {
        return new AzureObjectWriter(credential.account(ACCOUNT).endpoint("http://127.0.0.1:" + server.port() + "/"
                + ACCOUNT).entraId(false).build(), RemotePolicy.builder().time(time).build());
    }

    private AzureObjectWriter writer() {
        return writer(AzureClientOptions.builder().key(KEY));
    }

    private static MappingBuilder putBlob() {
        return put(urlPathEqualTo(PATH)).withQueryParam("comp", absent());
    }

    private static MappingBuilder putBlock() {
        return put(urlPathEqualTo(PATH)).withQueryParam("comp", equalTo("block"));
    }

    private static MappingBuilder putBlockList() {
        return put(urlPathEqualTo(PATH)).withQueryParam("comp", equalTo("blocklist"));
    }

    private static ResponseDefinitionBuilder refusal(int status, String code) {
        return aResponse().withStatus(status).withHeader("x-ms-error-code", code);
    }

    /** @return each request sent, as its method and its {@code comp} query ("PUT block") */
    private static List<String> sent() {
        return server.findAll(anyRequestedFor(anyUrl())).stream()
                .map(r -> r.getMethod() + (r.queryParameter("comp").isPresent()
                        ? " " + r.queryParameter("comp").firstValue() : ""))
                .toList();
    }

    private static List<LoggedRequest> requests(RequestPatternBuilder pattern) {
        return server.findAll(pattern);
    }

    private static WrittenObject write(AzureObjectWriter writer, byte[] bytes, UploadOptions options)
            throws IOException {
        try (ObjectUpload upload = writer.create(OBJECT, options)) {
            upload.write(ByteBuffer.wrap(bytes));
            return upload.commit();
        }
    }

    private static String md5(byte[] bytes) throws Exception {
        return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(bytes));
    }

    @Test
    void aOnePartObjectIsAHeadAndOneConditionalPutBlobWithItsMd5() throws Exception {
        byte[] bytes = "hello".getBytes(StandardCharsets.US_ASCII);
        server.stubFor(putBlob().willReturn(aResponse().withStatus(201).withHeader("Content-MD5", md5(bytes))));
        try (AzureObjectWriter writer = writer()) {
            WrittenObject written = write(writer, bytes, UploadOptions.DEFAULT);
            assertEquals(5, written.size());
            assertEquals("md5:" + md5(bytes), written.checksum().orElseThrow());
        }
        assertEquals(List.of("HEAD", "PUT"), sent());
        LoggedRequest put = requests(anyRequestedFor(urlPathEqualTo(PATH)).withQueryParam("comp", absent())
                .withHeader("x-ms-blob-type", equalTo("BlockBlob"))).get(0);
        assertEquals("*", put.getHeader("If-None-Match"));
        assertEquals(md5(bytes), put.getHeader("Content-MD5"));
        assertEquals("hello", put.getBodyAsString());
    }

    @Test
    void anObjectOfExactlyOnePartIsStillOnePutBlob() throws Exception {
        try (AzureObjectWriter writer = writer()) {
            write(writer, new byte[PART], UploadOptions.DEFAULT.withParts(PART, 2));
        }
        assertEquals(List.of("HEAD", "PUT"), sent());
    }

    @Test
    void aThreePartObjectIsAHeadThreePutBlocksAndAConditionalPutBlockList() throws Exception {
        byte[] bytes = new byte[PART * 2 + 3];
        bytes[PART] = 1;
        bytes[2 * PART] = 2;
        try (AzureObjectWriter writer = writer()) {
            WrittenObject written = write(writer, bytes, UploadOptions.DEFAULT.withParts(PART, 2));
            assertEquals(bytes.length, written.size());
            assertTrue(written.checksum().isEmpty(), "no whole-object checksum is reported for a blob of blocks");
        }
        List<String> sent = sent();
        assertEquals(5, sent.size(), sent.toString());
        assertEquals("HEAD", sent.get(0));
        assertEquals(List.of("PUT block", "PUT block", "PUT block"), sent.subList(1, 4).stream().sorted().toList());
        assertEquals("PUT blocklist", sent.get(4));

        List<LoggedRequest> blocks = requests(anyRequestedFor(urlPathEqualTo(PATH))
                .withQueryParam("comp", equalTo("block")));
        Set<String> ids = new HashSet<>();
        Set<Integer> lengths = new HashSet<>();
        for (LoggedRequest block : blocks) {
            String id = block.queryParameter("blockid").firstValue();
            ids.add(id);
            lengths.add(id.length());
            assertEquals(md5(block.getBody()), block.getHeader("Content-MD5"), "each block carries its MD5");
        }
        assertEquals(3, ids.size(), "each block has its own id");
        assertEquals(1, lengths.size(), "all block ids of a blob have one length");

        LoggedRequest list = requests(anyRequestedFor(urlPathEqualTo(PATH))
                .withQueryParam("comp", equalTo("blocklist"))).get(0);
        assertEquals("*", list.getHeader("If-None-Match"));
        Matcher latest = Pattern.compile("<Latest>([^<]*)</Latest>").matcher(list.getBodyAsString());
        int index = 0;
        while (latest.find()) {
            String id = latest.group(1);
            LoggedRequest block = blocks.stream().filter(b -> b.queryParameter("blockid").firstValue().equals(id))
                    .findFirst().orElseThrow();
            // the blocks are listed in the order of the content: part i starts with the byte i
            assertEquals(index, block.getBody()[0], "block " + index);
            index++;
        }
        assertEquals(3, index);
    }

    @Test
    void twoUploadsOfOneBlobNeverShareABlockId() throws Exception {
        try (AzureObjectWriter writer = writer()) {
            write(writer, new byte[PART + 1], UploadOptions.DEFAULT.withParts(PART, 1));
            write(writer, new byte[PART + 1], UploadOptions.DEFAULT.withParts(PART, 1));
        }
        Set<String> ids = new HashSet<>();
        for (LoggedRequest block : requests(anyRequestedFor(urlPathEqualTo(PATH))
                .withQueryParam("comp", equalTo("block")))) {
            ids.add(block.queryParameter("blockid").firstValue());
        }
        assertEquals(4, ids.size(), ids.toString());
    }

    @Test
    void overwritingSendsNoHeadAndNoCondition() throws Exception {
        try (AzureObjectWriter writer = writer()) {
            write(writer, new byte[] {1}, UploadOptions.DEFAULT.withOverwrite(true));
            write(writer, new byte[PART * 2 + 1], UploadOptions.DEFAULT.withOverwrite(true).withParts(PART, 2));
        }
        assertEquals(List.of("PUT", "PUT block", "PUT block", "PUT block", "PUT blocklist"), sent());
        assertTrue(requests(anyRequestedFor(anyUrl())).stream().noneMatch(r -> r.containsHeader("If-None-Match")));
    }

    @Test
    void anExistingBlobFailsTheCreateBeforeAnyByteIsSent() throws Exception {
        server.stubFor(head(urlPathEqualTo(PATH)).willReturn(aResponse().withStatus(200)));
        try (AzureObjectWriter writer = writer()) {
            StorageException e = assertThrows(StorageException.class,
                    () -> writer.create(OBJECT, UploadOptions.DEFAULT));
            assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
            assertTrue(e.getMessage().contains(OBJECT.display()), e.getMessage());
        }
        assertEquals(List.of("HEAD"), sent());
    }

    @ParameterizedTest
    @CsvSource({"412, ConditionNotMet", "409, BlobAlreadyExists"})
    void aRefusedConditionalPutBlobIsAlreadyExists(int status, String code) throws Exception {
        server.stubFor(putBlob().willReturn(refusal(status, code)));
        try (AzureObjectWriter writer = writer()) {
            StorageException e = assertThrows(StorageException.class,
                    () -> write(writer, new byte[] {1}, UploadOptions.DEFAULT));
            assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
            assertTrue(e.getMessage().contains(code) && e.getMessage().contains("127.0.0.1:" + server.port()),
                    e.getMessage());
        }
        assertEquals(List.of("HEAD", "PUT"), sent(), "a refusal is not retried");
    }

    @ParameterizedTest
    @CsvSource({"412, ConditionNotMet", "409, BlobAlreadyExists"})
    void aRefusedConditionalPutBlockListIsAlreadyExists(int status, String code) throws Exception {
        server.stubFor(putBlockList().willReturn(refusal(status, code)));
        try (AzureObjectWriter writer = writer()) {
            StorageException e = assertThrows(StorageException.class,
                    () -> write(writer, new byte[PART + 1], UploadOptions.DEFAULT.withParts(PART, 1)));
            assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
            assertTrue(e.getMessage().contains(OBJECT.display()) && e.getMessage().contains("Put Block List")
                    && e.getMessage().contains(code), e.getMessage());
        }
        assertEquals(List.of("HEAD", "PUT block", "PUT block", "PUT blocklist"), sent());
    }

    @Test
    void aPutBlockThatKeepsFailingFailsTheUploadAfterThePolicysAttempts() throws Exception {
        server.stubFor(putBlock().willReturn(refusal(500, "InternalError")));
        try (AzureObjectWriter writer = writer();
             ObjectUpload upload = writer.create(OBJECT, UploadOptions.DEFAULT.withParts(PART, 1))) {
            StorageException e = assertThrows(StorageException.class, () -> {
                upload.write(ByteBuffer.wrap(new byte[PART * 2 + 1]));
                upload.commit();
            });
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
            assertTrue(e.getMessage().contains("Put Block") && e.getMessage().contains("InternalError"),
                    e.getMessage());
            assertFalse(upload.isOpen(), "the failed upload is aborted");
        }
        assertEquals(RemotePolicy.DEFAULT.maxAttempts(), sent().stream().filter("PUT block"::equals).count());
        assertTrue(sent().stream().noneMatch("PUT blocklist"::equals), "nothing is committed");
        assertEquals(RemotePolicy.DEFAULT.maxAttempts() - 1, time.sleeps().size(), "a backoff between attempts");
    }

    @Test
    void aPutBlobAnswered500ThenCreatedIsRetriedOnce() throws Exception {
        server.stubFor(putBlob().inScenario("flaky").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(refusal(500, "ServerBusy")).willSetStateTo("recovered"));
        server.stubFor(putBlob().inScenario("flaky").whenScenarioStateIs("recovered")
                .willReturn(aResponse().withStatus(201)));
        try (AzureObjectWriter writer = writer()) {
            assertEquals(3, write(writer, new byte[] {1, 2, 3}, UploadOptions.DEFAULT).size());
        }
        assertEquals(List.of("HEAD", "PUT", "PUT"), sent());
        List<LoggedRequest> puts = requests(anyRequestedFor(urlPathEqualTo(PATH)).withQueryParam("comp", absent())
                .withHeader("x-ms-blob-type", equalTo("BlockBlob")));
        assertEquals(3, puts.get(1).getBody().length, "the retry sends the whole body again");
    }

    @Test
    void aPutBlockAnswered500ThenCreatedIsRetriedOnce() throws Exception {
        server.stubFor(putBlock().inScenario("flaky").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(refusal(503, "ServerBusy")).willSetStateTo("recovered"));
        server.stubFor(putBlock().inScenario("flaky").whenScenarioStateIs("recovered")
                .willReturn(aResponse().withStatus(201)));
        try (AzureObjectWriter writer = writer()) {
            write(writer, new byte[PART + 1], UploadOptions.DEFAULT.withParts(PART, 1));
        }
        assertEquals(List.of("HEAD", "PUT block", "PUT block", "PUT block", "PUT blocklist"), sent());
    }

    /** The Put Blob's first attempt created the blob but was answered 500: its retry finds the blob, its own. */
    @Test
    void aPutBlobThatCreatedTheBlobBeforeFailingIsNotRefusedByItsRetry() throws Exception {
        byte[] bytes = {1, 2, 3};
        stubPutBlobThatLands(aResponse().withStatus(200).withHeader("Content-MD5", md5(bytes))
                .withHeader("Content-Length", "3"));
        try (AzureObjectWriter writer = writer()) {
            assertEquals("md5:" + md5(bytes), write(writer, bytes, UploadOptions.DEFAULT).checksum().orElseThrow());
        }
        assertEquals(List.of("HEAD", "PUT", "PUT", "HEAD"), sent());
    }

    @Test
    void aPutBlobRefusedOnItsRetryForAnotherBlobIsAlreadyExists() throws Exception {
        stubPutBlobThatLands(aResponse().withStatus(200).withHeader("Content-MD5", md5(new byte[] {9}))
                .withHeader("Content-Length", "1"));
        try (AzureObjectWriter writer = writer()) {
            StorageException e = assertThrows(StorageException.class,
                    () -> write(writer, new byte[] {1}, UploadOptions.DEFAULT));
            assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
        }
        assertEquals(List.of("HEAD", "PUT", "PUT", "HEAD"), sent());
    }

    /** HEAD: absent; the first Put Blob fails with 500 but lands; its retry is refused; HEAD then answers this. */
    private static void stubPutBlobThatLands(ResponseDefinitionBuilder properties) {
        server.stubFor(putBlob().inScenario("landed").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(refusal(500, "InternalError")).willSetStateTo("landed"));
        server.stubFor(putBlob().inScenario("landed").whenScenarioStateIs("landed")
                .willReturn(refusal(409, "BlobAlreadyExists")));
        server.stubFor(head(urlPathEqualTo(PATH)).inScenario("landed").whenScenarioStateIs("landed")
                .willReturn(properties));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aPutBlockListRefusedOnItsRetryStandsIfTheCommittedBlocksAreItsOwn(boolean own) throws Exception {
        server.stubFor(putBlockList().inScenario("landed").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(refusal(503, "ServerBusy")).willSetStateTo("landed"));
        server.stubFor(putBlockList().inScenario("landed").whenScenarioStateIs("landed")
                .willReturn(refusal(412, "ConditionNotMet")));
        try (AzureObjectWriter writer = writer();
             ObjectUpload upload = writer.create(OBJECT, UploadOptions.DEFAULT.withParts(PART, 1))) {
            // one block in flight and one filling at most: the third part waits for the first block's answer
            upload.write(ByteBuffer.wrap(new byte[PART * 3]));
            String first = requests(anyRequestedFor(urlPathEqualTo(PATH)).withQueryParam("comp", equalTo("block")))
                    .get(0).queryParameter("blockid").firstValue();
            StringBuilder ours = new StringBuilder(first);
            for (int index = 1; index < 3; index++) {
                byte[] next = Base64.getDecoder().decode(first);
                next[next.length - 1] = (byte) index; // the same upload, the next index
                ours.append("</Name><Size>1</Size></Block><Block><Name>")
                        .append(Base64.getEncoder().encodeToString(next));
            }
            String committed = own ? ours.toString() : "b3RoZXI=";
            server.stubFor(get(urlPathEqualTo(PATH))
                    .withQueryParam("comp", equalTo("blocklist"))
                    .willReturn(aResponse().withStatus(200).withBody("<?xml version=\"1.0\" encoding=\"utf-8\"?>"
                            + "<BlockList><CommittedBlocks><Block><Name>" + committed
                            + "</Name><Size>1</Size></Block></CommittedBlocks></BlockList>")));
            if (own) {
                assertEquals(PART * 3, upload.commit().size());
            } else {
                StorageException e = assertThrows(StorageException.class, upload::commit);
                assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
            }
        }
        assertEquals(List.of("HEAD", "PUT block", "PUT block", "PUT block", "PUT blocklist", "PUT blocklist",
                "GET blocklist"), sent());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anotherMd5InTheAnswerIsAChecksumMismatch(boolean blocks) throws Exception {
        String other = md5("other bytes".getBytes(StandardCharsets.US_ASCII));
        server.stubFor((blocks ? putBlock() : putBlob()).willReturn(aResponse().withStatus(201)
                .withHeader("Content-MD5", other)));
        try (AzureObjectWriter writer = writer()) {
            StorageException e = assertThrows(StorageException.class, () -> write(writer,
                    new byte[blocks ? PART + 1 : 1], UploadOptions.DEFAULT.withParts(PART, 1)));
            assertEquals(ErrorCode.CHECKSUM_MISMATCH, e.code());
            assertTrue(e.getMessage().contains(other), e.getMessage());
        }
        assertTrue(sent().stream().noneMatch("PUT blocklist"::equals), "nothing is committed");
    }

    @Test
    void aServiceThatReceivedOtherBytesIsAChecksumMismatch() throws Exception {
        server.stubFor(putBlob().willReturn(refusal(400, "Md5Mismatch")));
        try (AzureObjectWriter writer = writer()) {
            StorageException e = assertThrows(StorageException.class,
                    () -> write(writer, new byte[] {1}, UploadOptions.DEFAULT));
            assertEquals(ErrorCode.CHECKSUM_MISMATCH, e.code());
        }
    }

    @Test
    void aRefusedSasOrKeyIsAccessDeniedAndNeverShown() throws Exception {
        server.stubFor(head(urlPathEqualTo(PATH)).willReturn(refusal(403, "AuthenticationFailed")));
        server.stubFor(putBlob().willReturn(refusal(403, "AuthorizationPermissionMismatch")));
        for (AzureClientOptions.Builder credential : List.of(AzureClientOptions.builder().key(KEY),
                AzureClientOptions.builder().sasToken("?sv=2024-11-04&sp=cw&sig=" + SAS_SIGNATURE))) {
            try (AzureObjectWriter writer = writer(credential)) {
                SourceAccessDeniedException head = assertThrows(SourceAccessDeniedException.class,
                        () -> writer.create(OBJECT, UploadOptions.DEFAULT));
                SourceAccessDeniedException put = assertThrows(SourceAccessDeniedException.class,
                        () -> write(writer, new byte[] {1}, UploadOptions.DEFAULT.withOverwrite(true)));
                for (SourceAccessDeniedException e : List.of(head, put)) {
                    assertEquals(ErrorCode.ACCESS_DENIED, e.code());
                    assertTrue(e.getMessage().contains("Authentication") || e.getMessage().contains("Authorization"),
                            e.getMessage());
                    assertFalse(e.getMessage().contains(SAS_SIGNATURE) || e.getMessage().contains("sig=")
                            || e.getMessage().contains(KEY), e.getMessage());
                }
            }
        }
        assertEquals(SAS_SIGNATURE, requests(anyRequestedFor(anyUrl())).get(2).queryParameter("sig").firstValue(),
                "the SAS was sent");
    }

    @Test
    void deleteSucceedsForAnAbsentBlobAndFailsCodedWhenTheServiceKeepsFailing() throws Exception {
        server.stubFor(delete(urlPathEqualTo(PATH)).willReturn(refusal(404, "BlobNotFound")));
        try (AzureObjectWriter writer = writer()) {
            writer.delete(OBJECT);
            server.stubFor(delete(urlPathEqualTo(PATH)).willReturn(aResponse().withStatus(202)));
            writer.delete(OBJECT);
            server.stubFor(delete(urlPathEqualTo(PATH)).willReturn(refusal(503, "ServerBusy")));
            StorageException e = assertThrows(StorageException.class, () -> writer.delete(OBJECT));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
        }
        assertEquals(2 + RemotePolicy.DEFAULT.maxAttempts(), sent().size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"az://models", "az://models/", "az://models/folder/",
            "az://models/m.safetensors?versionid=2024-01-01T00:00:00.0000000Z",
            "az://models/m.safetensors?snapshot=2024-01-01T00:00:00.0000000Z"})
    void aLocationThatNamesNoWritableBlobIsInvalid(String text) {
        try (AzureObjectWriter writer = writer()) {
            Location location = Location.parse(text);
            assertTrue(writer.supports(location));
            InvalidLocationException create = assertThrows(InvalidLocationException.class,
                    () -> writer.create(location, UploadOptions.DEFAULT));
            assertEquals(ErrorCode.INVALID_SOURCE, create.code());
            InvalidLocationException delete = assertThrows(InvalidLocationException.class,
                    () -> writer.delete(location));
            assertEquals(ErrorCode.INVALID_SOURCE, delete.code());
        }
        assertEquals(List.of(), sent());
    }

    @Test
    void theWriterIsFoundByTheServiceLoader() {
        assertTrue(java.util.ServiceLoader.load(dev.safetensors.spi.ObjectWriterProvider.class).stream()
                .anyMatch(p -> p.type() == AzureObjectWriter.class));
    }
}
