package dev.safetensors.gcs;

import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.google.cloud.storage.Storage;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;
import dev.safetensors.testing.ManualTime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The requests {@link GcsObjectWriter} makes, counted and checked against the fake Cloud Storage server, some
 * answers scripted in front of it: the request pattern its class comment documents, a chunk resumed from what the
 * session holds, failures coded and their session cancelled, the CRC32C compared.
 */
class GcsObjectWriterRequestsTest {
    private static final String BUCKET = "writer-requests";
    private static final String UPLOADS = "/upload/storage/v1/b/" + BUCKET + "/o";
    private static final int PART = UploadOptions.MIN_PART_SIZE;
    private static final int THREE_PARTS = 2 * PART + 17;
    private static final UploadOptions IN_PARTS = UploadOptions.DEFAULT.withParts(PART, 2);
    private static final String FIRST = "PUT bytes 0-5242879/*";
    private static final String SECOND = "PUT bytes 5242880-10485759/*";
    private static final String LAST = "PUT bytes 10485760-10485776/10485777";
    private static final AtomicInteger OBJECTS = new AtomicInteger();

    private final ManualTime time = new ManualTime();
    private GcsTestServer server;
    private Storage storage;
    private GcsObjectWriter writer;
    private String name;
    private Location location;

    @BeforeEach
    void start() {
        server = new GcsTestServer();
        server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
        storage = server.storage(1);
        writer = new GcsObjectWriter(storage, RemotePolicy.builder().maxAttempts(3).time(time).build());
        name = "run/object-" + OBJECTS.incrementAndGet() + ".bin";
        location = Location.parse("gs://" + BUCKET + "/" + name);
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        storage.close();
        server.close();
    }

    @Test
    void anObjectOfOnePartTakesTheAbsenceCheckAndOneUploadCarryingItsCrc32c() throws Exception {
        byte[] bytes = random(1000);
        WrittenObject written = write(UploadOptions.DEFAULT, bytes);
        assertEquals(List.of("GET metadata", "POST media if absent"), exchanges());
        String crc32c = FakeGcsObjects.crc32c(bytes);
        assertEquals("crc32c=" + crc32c, server.headers("x-goog-hash").get(1));
        assertEquals(Optional.of("crc32c:" + crc32c), written.checksum());
        assertEquals(1000, written.size());
        assertArrayEquals(bytes, stored());
    }

    @Test
    void anObjectOfThreePartsTakesTheAbsenceCheckASessionAndOnePutPerPart() throws Exception {
        byte[] bytes = random(THREE_PARTS);
        write(IN_PARTS, bytes);
        assertEquals(List.of("GET metadata", "POST resumable if absent", FIRST, SECOND, LAST), exchanges());
        List<String> hashes = server.headers("x-goog-hash");
        assertEquals(List.of("-", "-", "-", "-", "crc32c=" + FakeGcsObjects.crc32c(bytes)), hashes,
                "the CRC32C goes with the last chunk only");
        assertArrayEquals(bytes, stored());
    }

    @Test
    void anOverwriteMakesNoCheckAndPartsAreCutAtMultiplesOf256KiB() throws Exception {
        byte[] bytes = random(THREE_PARTS);
        write(UploadOptions.DEFAULT.withOverwrite(true).withParts(PART + 1000, 1), bytes);
        assertEquals(List.of("POST resumable", FIRST, SECOND, LAST), exchanges());
        assertArrayEquals(bytes, stored());
    }

    @Test
    void aChunkAnswered503IsResentFromTheByteTheSessionSaysItHolds() throws Exception {
        server.wireMock.stubFor(put(urlPathEqualTo(UPLOADS)).atPriority(1)
                .withHeader("Content-Range", equalTo(SECOND.substring(4)))
                .inScenario("flaky").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("failed once")
                .willReturn(aResponse().withStatus(503)));
        byte[] bytes = random(THREE_PARTS);
        write(IN_PARTS, bytes);
        assertEquals(List.of("GET metadata", "POST resumable if absent", FIRST, SECOND, "PUT bytes */*", SECOND,
                LAST), exchanges());
        assertEquals(1, time.sleeps().size(), "the one retry is the policy's, on its clock");
        assertArrayEquals(bytes, stored());
    }

    @Test
    void aChunkStoredBeforeItsAnswerWasLostIsNotSentAgain() throws Exception {
        FakeGcsObjects.loseTheNextUploadAnswer(BUCKET);
        byte[] bytes = random(THREE_PARTS);
        write(IN_PARTS, bytes);
        assertEquals(List.of("GET metadata", "POST resumable if absent", FIRST, "PUT bytes */*", SECOND, LAST),
                exchanges());
        assertArrayEquals(bytes, stored());
    }

    @Test
    void aOneRequestUploadWhoseAnswerWasLostIsRefusedByItsOwnObjectAndSaysSo() throws Exception {
        FakeGcsObjects.loseTheNextUploadAnswer(BUCKET);
        byte[] bytes = random(1000);
        StorageException refused = assertThrows(StorageException.class, () -> write(UploadOptions.DEFAULT, bytes));
        assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
        assertTrue(refused.getMessage().contains("may have created it")
                && refused.getMessage().contains(FakeGcsObjects.crc32c(bytes)), refused.getMessage());
        assertEquals(List.of("GET metadata", "POST media if absent", "POST media if absent"), exchanges());
        assertArrayEquals(bytes, stored(), "the object the first attempt stored is kept");
    }

    @Test
    void theLastChunkAnswered503IsQueriedWithTheTotal() throws Exception {
        server.wireMock.stubFor(put(urlPathEqualTo(UPLOADS)).atPriority(1)
                .withHeader("Content-Range", equalTo(LAST.substring(4)))
                .inScenario("flaky").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("failed once")
                .willReturn(aResponse().withStatus(503)));
        byte[] bytes = random(THREE_PARTS);
        write(IN_PARTS, bytes);
        assertEquals(List.of("GET metadata", "POST resumable if absent", FIRST, SECOND, LAST,
                "PUT bytes */10485777", LAST), exchanges());
        assertArrayEquals(bytes, stored());
    }

    @Test
    void anObjectThatAppearsBeforeTheLastChunkIsRefusedAlreadyExistsAndTheSessionCancelled() throws Exception {
        byte[] bytes = random(PART + 5);
        try (ObjectUpload upload = writer.create(location, IN_PARTS)) {
            upload.write(ByteBuffer.wrap(bytes));
            FakeGcsObjects.put(BUCKET, name, new byte[] {1}, 7);
            StorageException refused = assertThrows(StorageException.class, upload::commit);
            assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
            assertTrue(refused.getMessage().contains(location.display()), refused.getMessage());
        }
        assertEquals(List.of("GET metadata", "POST resumable if absent", FIRST, "PUT bytes 5242880-5242884/5242885",
                "DELETE session"), exchanges());
        assertArrayEquals(new byte[] {1}, stored());
        assertEquals(0, FakeGcsObjects.openSessions(BUCKET));
    }

    @Test
    void aChunkAnswered500EveryTimeFailsCodedAfterThePolicysAttemptsAndTheSessionIsCancelled() throws Exception {
        server.wireMock.stubFor(put(urlPathEqualTo(UPLOADS)).atPriority(1)
                .withHeader("Content-Range", matching("bytes [0-9].*"))
                .willReturn(aResponse().withStatus(500).withHeader("Content-Type", "application/json")
                        .withBody("{\"error\":{\"code\":500,\"message\":\"Internal Error\"}}")));
        ObjectUpload upload = writer.create(location, IN_PARTS);
        StorageException failed = assertThrows(StorageException.class,
                () -> upload.write(ByteBuffer.wrap(random(PART + 5))));
        assertEquals(ErrorCode.SERVER_ERROR, failed.code());
        assertTrue(failed.getMessage().contains(location.display()) && failed.getMessage().contains("Internal Error"),
                failed.getMessage());
        assertFalse(upload.isOpen(), "a failed part aborts the upload");
        upload.close();
        assertEquals(List.of("GET metadata", "POST resumable if absent", FIRST, "PUT bytes */*", FIRST,
                "PUT bytes */*", FIRST, "DELETE session"), exchanges());
        assertEquals(2, time.sleeps().size());
        assertEquals(0, FakeGcsObjects.openSessions(BUCKET));
        assertNull(FakeGcsObjects.stored(BUCKET, name));
    }

    @Test
    void anAbortCancelsTheSessionOnceAndAnUploadThatSentNothingMakesNoRequest() throws Exception {
        ObjectUpload upload = writer.create(location, IN_PARTS);
        upload.write(ByteBuffer.wrap(random(PART + 5)));
        upload.abort();
        upload.abort();
        upload.close();
        try (ObjectUpload unsent = writer.create(location, IN_PARTS)) {
            unsent.write(ByteBuffer.wrap(random(PART)));
        }
        assertEquals(List.of("GET metadata", "POST resumable if absent", FIRST, "DELETE session", "GET metadata"),
                exchanges());
        assertEquals(0, FakeGcsObjects.openSessions(BUCKET));
        assertNull(FakeGcsObjects.stored(BUCKET, name));
    }

    @Test
    void aCrc32cThatDiffersFromTheBytesWrittenIsAMismatchAndTheObjectCreatedIsDeleted() throws Exception {
        stubAStoredObjectWithAnotherCrc32c();
        StorageException mismatch = assertThrows(StorageException.class,
                () -> write(UploadOptions.DEFAULT, new byte[] {1, 2, 3, 4, 5}));
        assertEquals(ErrorCode.CHECKSUM_MISMATCH, mismatch.code());
        assertTrue(mismatch.getMessage().contains(location.display()) && mismatch.getMessage().contains("deleted"),
                mismatch.getMessage());
        assertEquals(List.of("GET metadata", "POST media if absent", "DELETE object ifGenerationMatch=42"),
                exchanges());
    }

    @Test
    void aCrc32cMismatchOfAnOverwriteLeavesTheObject() throws Exception {
        stubAStoredObjectWithAnotherCrc32c();
        StorageException mismatch = assertThrows(StorageException.class,
                () -> write(UploadOptions.DEFAULT.withOverwrite(true), new byte[] {1, 2, 3, 4, 5}));
        assertEquals(ErrorCode.CHECKSUM_MISMATCH, mismatch.code());
        assertTrue(mismatch.getMessage().contains("left as it is"), mismatch.getMessage());
        assertEquals(List.of("POST media"), exchanges());
    }

    private void stubAStoredObjectWithAnotherCrc32c() {
        server.wireMock.stubFor(post(urlPathEqualTo(UPLOADS)).atPriority(1)
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"kind\":\"storage#object\",\"bucket\":\"" + BUCKET + "\",\"name\":\"" + name
                                + "\",\"size\":\"5\",\"generation\":\"42\",\"crc32c\":\"AAAAAA==\"}")));
    }

    private WrittenObject write(UploadOptions options, byte[] bytes) throws Exception {
        try (ObjectUpload upload = writer.create(location, options)) {
            // in uneven pieces, so that chunks are cut inside writes
            for (int at = 0; at < bytes.length; at += 999_983) {
                upload.write(ByteBuffer.wrap(bytes, at, Math.min(999_983, bytes.length - at)));
            }
            return upload.commit();
        }
    }

    private byte[] stored() {
        return FakeGcsObjects.stored(BUCKET, name).content();
    }

    /** @return each request the server saw, by what it is: its kind, and a session PUT's Content-Range */
    private List<String> exchanges() {
        List<String> requests = server.requests();
        List<String> ranges = server.headers("Content-Range");
        List<String> shapes = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            String request = requests.get(i);
            String ifAbsent = request.contains("ifGenerationMatch=0") ? " if absent" : "";
            if (request.startsWith("GET /storage/v1/b/")) {
                shapes.add("GET metadata");
            } else if (request.startsWith("POST " + UPLOADS + "?uploadType=media")) {
                shapes.add("POST media" + ifAbsent);
            } else if (request.startsWith("POST " + UPLOADS + "?uploadType=resumable")) {
                shapes.add("POST resumable" + ifAbsent);
            } else if (request.startsWith("PUT " + UPLOADS) && request.contains("&upload_id=")) {
                shapes.add("PUT " + ranges.get(i));
            } else if (request.startsWith("DELETE " + UPLOADS) && request.contains("&upload_id=")) {
                shapes.add("DELETE session");
            } else if (request.startsWith("DELETE /storage/v1/b/")) {
                int query = request.indexOf('?');
                shapes.add("DELETE object" + (query < 0 ? "" : " " + request.substring(query + 1)));
            } else {
                shapes.add(request);
            }
        }
        return shapes;
    }

    private static byte[] random(int length) {
        byte[] bytes = new byte[length];
        SplittableRandom random = new SplittableRandom(length);
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        return bytes;
    }
}
