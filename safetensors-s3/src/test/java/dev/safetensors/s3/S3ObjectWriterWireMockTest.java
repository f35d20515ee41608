package dev.safetensors.s3;

import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What only a scripted S3 shows of {@link S3ObjectWriter}: the conditional create refused at PutObject and at
 * CompleteMultipartUpload, failing and retried parts, a checksum S3 reports that is not the bytes', and the exact
 * requests an object costs. The object itself is never stored: WireMock answers each request as scripted here, and
 * a HEAD of the object finds nothing.
 */
class S3ObjectWriterWireMockTest {
    private static final String KEY = "out/m.safetensors";
    private static final String PATH = "/" + WireMockS3.BUCKET + "/" + KEY;
    private static final Location OBJECT = Location.parse("s3://" + WireMockS3.BUCKET + "/" + KEY);
    private static final String UPLOAD_ID = "upload-1";
    private static final UploadOptions SMALL_PARTS = UploadOptions.DEFAULT
            .withParts(UploadOptions.MIN_PART_SIZE, 2);

    private static WireMockS3 s3;
    private S3ObjectWriter writer;

    @BeforeAll
    static void start() {
        s3 = new WireMockS3();
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    @BeforeEach
    void reset() {
        s3.reset();
        writer = new S3ObjectWriter(s3.client, RemotePolicy.builder().maxAttempts(3).time(s3.time).build());
    }

    @Test
    void aPutRefusedByItsConditionIsAlreadyExists() {
        stub(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", absent()), error(412, "PreconditionFailed"));
        StorageException refused = assertThrows(StorageException.class, () -> write(bytes(5), UploadOptions.DEFAULT));
        assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
        assertTrue(refused.getMessage().contains(OBJECT.display()), refused.getMessage());
        assertEquals("If-None-Match: *", "If-None-Match: " + requestsOf("PUT").get(0).getHeader("If-None-Match"));
        assertNoSecret(refused);
    }

    @Test
    void aCompleteRefusedByItsConditionIsAlreadyExistsAndTheUploadIsAborted() {
        stubMultipart();
        override(post(urlPathEqualTo(PATH)).withQueryParam("uploadId", equalTo(UPLOAD_ID)),
                error(412, "PreconditionFailed"));
        StorageException refused = assertThrows(StorageException.class,
                () -> write(bytes(UploadOptions.MIN_PART_SIZE + 1), SMALL_PARTS));
        assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
        assertEquals(List.of("HEAD", "POST uploads", "PUT part 1", "PUT part 2", "POST complete", "DELETE upload"),
                sortedParts(described()));
        assertNoSecret(refused);
    }

    @Test
    void aCompleteRefusedForAConcurrentWriteIsAlreadyExists() {
        stubMultipart();
        override(post(urlPathEqualTo(PATH)).withQueryParam("uploadId", equalTo(UPLOAD_ID)),
                error(409, "ConditionalRequestConflict"));
        StorageException refused = assertThrows(StorageException.class,
                () -> write(bytes(UploadOptions.MIN_PART_SIZE + 1), SMALL_PARTS));
        assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
        assertTrue(described().contains("DELETE upload"), String.valueOf(described()));
    }

    @Test
    void aPartThatKeepsFailingFailsTheUploadCodedAndAbortsIt() {
        stubMultipart();
        override(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", equalTo("1")),
                error(500, "InternalError"));
        StorageException failed = assertThrows(StorageException.class,
                () -> write(bytes(UploadOptions.MIN_PART_SIZE + 1), SMALL_PARTS.withParts(UploadOptions.MIN_PART_SIZE,
                        1)));
        assertEquals(ErrorCode.SERVER_ERROR, failed.code());
        assertTrue(failed.getMessage().contains(OBJECT.display()), failed.getMessage());
        // the last part may go beside the first, whose failure then aborts the upload
        assertEquals(List.of("HEAD", "POST uploads", "PUT part 1", "PUT part 1", "PUT part 1", "DELETE upload"),
                withoutPart2(described()), "three attempts, as the policy allows, then the abort");
        assertEquals(2, s3.time.sleeps().size(), "the policy's backoff between attempts");
        assertNoSecret(failed);
    }

    @Test
    void aPartFailingOnceIsRetriedByThePolicy() throws Exception {
        stubMultipart();
        override(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", equalTo("1"))
                .inScenario("part 1").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("failed once"),
                error(500, "InternalError"));
        override(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", equalTo("1"))
                .inScenario("part 1").whenScenarioStateIs("failed once"), aResponse().withStatus(200)
                .withHeader("ETag", "\"part-1\""));
        WrittenObject written = write(bytes(UploadOptions.MIN_PART_SIZE + 1), SMALL_PARTS);
        assertEquals(UploadOptions.MIN_PART_SIZE + 1, written.size());
        assertEquals(List.of("HEAD", "POST uploads", "PUT part 1", "PUT part 1", "PUT part 2", "POST complete"),
                sortedParts(described()));
    }

    @Test
    void aPutWhoseReportedChecksumDiffersIsAMismatchAndTheObjectIsDeleted() {
        stub(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", absent()), aResponse().withStatus(200)
                .withHeader("ETag", "\"e\"").withHeader("x-amz-checksum-crc32c", "AAAAAA=="));
        stub(delete(urlPathEqualTo(PATH)).withQueryParam("uploadId", absent()), aResponse().withStatus(204));
        StorageException mismatch = assertThrows(StorageException.class,
                () -> write(bytes(5), UploadOptions.DEFAULT));
        assertEquals(ErrorCode.CHECKSUM_MISMATCH, mismatch.code());
        assertEquals(List.of("HEAD", "PUT", "DELETE object"), described());
        assertNoSecret(mismatch);
    }

    @Test
    void aPartWhoseReportedChecksumDiffersFailsTheUploadAndAbortsIt() {
        stubMultipart();
        override(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", equalTo("1")), aResponse().withStatus(200)
                .withHeader("ETag", "\"part-1\"").withHeader("x-amz-checksum-crc32c", "AAAAAA=="));
        StorageException mismatch = assertThrows(StorageException.class,
                () -> write(bytes(UploadOptions.MIN_PART_SIZE + 1), SMALL_PARTS.withParts(UploadOptions.MIN_PART_SIZE,
                        1)));
        assertEquals(ErrorCode.CHECKSUM_MISMATCH, mismatch.code());
        assertEquals(List.of("HEAD", "POST uploads", "PUT part 1", "DELETE upload"), withoutPart2(described()));
    }

    /** The requests without the second part's, which may be sent beside the first while the first fails. */
    private static List<String> withoutPart2(List<String> requests) {
        return requests.stream().filter(r -> !r.equals("PUT part 2")).toList();
    }

    @Test
    void aCompleteWhoseReportedChecksumDiffersIsAMismatchAndTheObjectIsDeleted() {
        stubMultipart();
        override(post(urlPathEqualTo(PATH)).withQueryParam("uploadId", equalTo(UPLOAD_ID)),
                aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                        .withBody(completed("<ChecksumCRC32C>AAAAAA==</ChecksumCRC32C>")));
        stub(delete(urlPathEqualTo(PATH)).withQueryParam("uploadId", absent()), aResponse().withStatus(204));
        StorageException mismatch = assertThrows(StorageException.class,
                () -> write(bytes(UploadOptions.MIN_PART_SIZE + 1), SMALL_PARTS));
        assertEquals(ErrorCode.CHECKSUM_MISMATCH, mismatch.code());
        assertEquals(List.of("HEAD", "POST uploads", "PUT part 1", "PUT part 2", "POST complete", "DELETE object"),
                sortedParts(described()), "the object is deleted; no upload is left to abort");
    }

    @Test
    void aCompositeChecksumIsComparedWithThePartsChecksums() throws Exception {
        byte[] content = bytes(UploadOptions.MIN_PART_SIZE + 7);
        String composite = S3Crc32c.composite(List.of(S3Crc32c.of(content, 0, UploadOptions.MIN_PART_SIZE),
                S3Crc32c.of(content, UploadOptions.MIN_PART_SIZE, 7)));
        stubMultipart();
        override(post(urlPathEqualTo(PATH)).withQueryParam("uploadId", equalTo(UPLOAD_ID)),
                aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                        .withBody(completed("<ChecksumCRC32C>" + composite + "</ChecksumCRC32C>")));
        assertEquals(Optional.of("crc32c:" + composite), write(content, SMALL_PARTS).checksum());
        assertTrue(composite.endsWith("-2"), composite);
    }

    @Test
    void anObjectOfOnePartIsAHeadAndAPut() throws Exception {
        byte[] content = bytes(UploadOptions.MIN_PART_SIZE);
        String crc = S3Crc32c.base64(S3Crc32c.of(content, 0, content.length));
        stub(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", absent()), aResponse().withStatus(200)
                .withHeader("ETag", "\"e\"").withHeader("x-amz-checksum-crc32c", crc));
        WrittenObject written = write(content, SMALL_PARTS);
        assertEquals(List.of("HEAD", "PUT"), described(), "a whole part is still one PUT");
        assertEquals(Optional.of("crc32c:" + crc), written.checksum());
        LoggedRequest sent = requestsOf("PUT").get(0);
        assertEquals(crc, sent.getHeader("x-amz-checksum-crc32c"));
        assertEquals("*", sent.getHeader("If-None-Match"));
    }

    @Test
    void anObjectOfThreePartsIsAHeadACreateThreePartsAndAComplete() throws Exception {
        byte[] content = bytes(UploadOptions.MIN_PART_SIZE * 2 + 100);
        String crc = S3Crc32c.base64(S3Crc32c.of(content, 0, content.length));
        stubMultipart();
        override(post(urlPathEqualTo(PATH)).withQueryParam("uploadId", equalTo(UPLOAD_ID)),
                aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                        .withBody(completed("<ChecksumCRC32C>" + crc + "</ChecksumCRC32C>")));
        WrittenObject written = write(content, SMALL_PARTS);
        assertEquals(List.of("HEAD", "POST uploads", "PUT part 1", "PUT part 2", "PUT part 3", "POST complete"),
                sortedParts(described()));
        assertEquals(Optional.of("crc32c:" + crc), written.checksum(), "the full-object CRC32C, compared");
        LoggedRequest complete = requestsOf("POST").get(1);
        assertEquals("*", complete.getHeader("If-None-Match"));
        assertEquals(crc, complete.getHeader("x-amz-checksum-crc32c"));
        assertEquals("FULL_OBJECT", requestsOf("POST").get(0).getHeader("x-amz-checksum-type"));
    }

    @Test
    void anOverwriteSendsNoHeadAndNoCondition() throws Exception {
        stub(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", absent()), aResponse().withStatus(200)
                .withHeader("ETag", "\"e\""));
        assertEquals(Optional.empty(), write(bytes(5), UploadOptions.DEFAULT.withOverwrite(true)).checksum(),
                "a store that reports no checksum");
        assertEquals(List.of("PUT"), described());
        assertFalse(requestsOf("PUT").get(0).containsHeader("If-None-Match"));
    }

    @Test
    void partsUploadSideBySideButNeverMoreThanTheParallelism() throws Exception {
        stubMultipart();
        PartsInFlight inFlight = new PartsInFlight(2);
        S3ClientBuilder builder = new S3ClientOptions(URI.create("http://127.0.0.1:" + s3.server.port()), true)
                .clientBuilder().region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(WireMockS3.ACCESS_KEY, WireMockS3.SECRET_KEY)));
        builder.overrideConfiguration(builder.overrideConfiguration().toBuilder().addExecutionInterceptor(inFlight)
                .build());
        try (S3Client counted = builder.build()) {
            writer = new S3ObjectWriter(counted, RemotePolicy.builder().time(s3.time).build());
            write(bytes(UploadOptions.MIN_PART_SIZE * 4 + 1), SMALL_PARTS);
        }
        assertEquals(2, inFlight.most(), "the first two parts met while both were in flight");
        assertEquals(5, requestsOf("PUT").size());
    }

    /**
     * Counts the UploadPart requests in flight at once; the first {@code parallelism} wait for each other before
     * they are sent, so that an upload that sent them one by one fails instead of passing unseen.
     */
    private static final class PartsInFlight implements ExecutionInterceptor {
        private final CyclicBarrier first;
        private final AtomicInteger now = new AtomicInteger();
        private final AtomicInteger most = new AtomicInteger();
        private final AtomicInteger seen = new AtomicInteger();

        PartsInFlight(int parallelism) {
            first = new CyclicBarrier(parallelism);
        }

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            if (!(context.request() instanceof UploadPartRequest)) {
                return;
            }
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            if (seen.incrementAndGet() <= first.getParties()) {
                try {
                    // a guard against a hang, never waited out when parts go side by side
                    first.await(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("the first parts were not in flight together", e);
                }
            }
        }

        @Override
        public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
            if (context.request() instanceof UploadPartRequest) {
                now.decrementAndGet();
            }
        }

        int most() {
            return most.get();
        }
    }

    private WrittenObject write(byte[] content, UploadOptions options) throws Exception {
        try (ObjectUpload upload = writer.create(OBJECT, options)) {
            upload.write(ByteBuffer.wrap(content));
            return upload.commit();
        }
    }

    /** Answers CreateMultipartUpload, every UploadPart, CompleteMultipartUpload and AbortMultipartUpload. */
    private static void stubMultipart() {
        stub(post(urlPathEqualTo(PATH)).withQueryParam("uploads", matching(".*")), aResponse().withStatus(200)
                .withHeader("Content-Type", "application/xml").withBody("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                        + "<InitiateMultipartUploadResult><Bucket>" + WireMockS3.BUCKET + "</Bucket><Key>" + KEY
                        + "</Key><UploadId>" + UPLOAD_ID + "</UploadId></InitiateMultipartUploadResult>"));
        stub(put(urlPathEqualTo(PATH)).withQueryParam("partNumber", matching("[0-9]+")), aResponse().withStatus(200)
                .withHeader("ETag", "\"part\""));
        stub(post(urlPathEqualTo(PATH)).withQueryParam("uploadId", equalTo(UPLOAD_ID)), aResponse().withStatus(200)
                .withHeader("Content-Type", "application/xml").withBody(completed("")));
        stub(delete(urlPathEqualTo(PATH)).withQueryParam("uploadId", equalTo(UPLOAD_ID)),
                aResponse().withStatus(204));
    }

    private static String completed(String checksum) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUploadResult><Bucket>"
                + WireMockS3.BUCKET + "</Bucket><Key>" + KEY + "</Key><ETag>\"whole-3\"</ETag>" + checksum
                + "</CompleteMultipartUploadResult>";
    }

    /** Answers a request, above the bucket's catch-all (priority 10), which answers a HEAD of the object 404. */
    private static void stub(MappingBuilder request, ResponseDefinitionBuilder response) {
        s3.server.stubFor(request.atPriority(5).willReturn(response));
    }

    /** Answers a request otherwise than {@link #stubMultipart()} does. */
    private static void override(MappingBuilder request, ResponseDefinitionBuilder response) {
        s3.server.stubFor(request.atPriority(1).willReturn(response));
    }

    private static ResponseDefinitionBuilder error(int status, String code) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/xml")
                .withBody(S3ObjectsTransformer.errorXml(code));
    }

    private static List<LoggedRequest> requestsOf(String method) {
        return s3.requests().stream().filter(r -> r.getMethod().getName().equals(method)).toList();
    }

    /** @return each request as method and what it is ({@code PUT part 2}), in the order received */
    private static List<String> described() {
        List<String> described = new ArrayList<>();
        for (LoggedRequest r : s3.requests()) {
            String method = r.getMethod().getName();
            String query = r.getUrl().contains("?") ? r.getUrl().substring(r.getUrl().indexOf('?') + 1) : "";
            if (query.contains("partNumber=")) {
                described.add(method + " part " + r.queryParameter("partNumber").firstValue());
            } else if (query.startsWith("uploads")) {
                described.add(method + " uploads");
            } else if (query.contains("uploadId=")) {
                described.add(method + (method.equals("POST") ? " complete" : " upload"));
            } else {
                described.add(method + (method.equals("DELETE") ? " object" : ""));
            }
        }
        return described;
    }

    /** @return the requests with the parts, which upload side by side, in part order */
    private static List<String> sortedParts(List<String> described) {
        List<String> parts = new ArrayList<>(described.stream().filter(d -> d.startsWith("PUT part")).toList());
        parts.sort(null);
        List<String> sorted = new ArrayList<>();
        for (String d : described) {
            sorted.add(d.startsWith("PUT part") ? parts.remove(0) : d);
        }
        return sorted;
    }

    private static void assertNoSecret(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            assertSays(t);
            for (Throwable suppressed : t.getSuppressed()) {
                assertSays(suppressed);
            }
        }
    }

    private static void assertSays(Throwable t) {
        String message = String.valueOf(t.getMessage());
        assertFalse(message.contains(WireMockS3.SECRET_KEY), message);
        assertFalse(message.contains(WireMockS3.ACCESS_KEY), message);
        assertFalse(message.contains("Signature="), message);
    }

    private static byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        SplittableRandom random = new SplittableRandom(length);
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }
}
