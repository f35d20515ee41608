package dev.safetensors.azure;

import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelineSyncPolicy;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import dev.safetensors.azure.testing.Azurite;
import dev.safetensors.fixtures.AbstractObjectWriterContractTest;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared write contract against a real Azurite on loopback, through az:// locations, read back with
 * {@link AzureSourceProvider}; and the requests an object takes, counted at the client's pipeline. Azurite honours
 * {@code If-None-Match: *} on Put Blob and Put Block List, so the race of a blob appearing during the upload is
 * tested here, not only against a scripted server.
 */
class AzuriteWriterContractTest extends AbstractObjectWriterContractTest {
    private static final String CONTAINER = "writes";
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static final List<String> SENT = new CopyOnWriteArrayList<>();
    private static Azurite azurite;
    private static AzureSourceProvider reader;
    private static AzureObjectWriter counted;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        azurite.client().getBlobContainerClient(CONTAINER).createIfNotExists();
        reader = new AzureSourceProvider(AzureClientOptions.builder().connectionString(azurite.connectionString())
                .build());
        BlobServiceClient client = new BlobServiceClientBuilder().connectionString(azurite.connectionString())
                .addPolicy(new HttpPipelineSyncPolicy() {
                    @Override
                    protected void beforeSendingRequest(HttpPipelineCallContext context) {
                        String query = context.getHttpRequest().getUrl().getQuery();
                        SENT.add(context.getHttpRequest().getHttpMethod() + (query == null ? ""
                                : " " + query.replaceAll("&blockid=.*", "")));
                    }
                }).buildClient();
        counted = new AzureObjectWriter(client);
    }

    @AfterAll
    static void stop() {
        if (reader != null) {
            reader.close();
        }
    }

    @Override
    protected ObjectWriterProvider newWriter() {
        return new AzureObjectWriter(AzureClientOptions.builder().connectionString(azurite.connectionString())
                .build());
    }

    @Override
    protected RandomAccessSourceProvider readProvider() {
        return reader;
    }

    @Override
    protected Location newPrefix() {
        return Location.parse("az://" + CONTAINER + "/prefix-" + PREFIXES.incrementAndGet() + "/");
    }

    @Override
    protected boolean storeRefusesAnObjectThatAppearsDuringTheUpload() {
        return true;
    }

    @Override
    protected boolean storeKeepsIncompleteUploads() {
        return false;
    }

    @Test
    void aOnePartObjectIsAHeadAndAPutBlobAndItsMd5IsTheChecksum() throws Exception {
        SENT.clear();
        WrittenObject written;
        try (ObjectUpload upload = counted.create(at("one.bin"), UploadOptions.DEFAULT)) {
            upload.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            written = upload.commit();
        }
        assertEquals(List.of("HEAD", "PUT"), SENT);
        String md5 = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(new byte[] {1, 2, 3}));
        assertEquals("md5:" + md5, written.checksum().orElseThrow());
    }

    @Test
    void aThreePartObjectIsAHeadThreePutBlocksAndAPutBlockList() throws Exception {
        SENT.clear();
        WrittenObject written;
        try (ObjectUpload upload = counted.create(at("three.bin"), UploadOptions.DEFAULT
                .withParts(UploadOptions.MIN_PART_SIZE, 2))) {
            upload.write(ByteBuffer.wrap(new byte[UploadOptions.MIN_PART_SIZE * 2 + 1]));
            written = upload.commit();
        }
        assertEquals(List.of("HEAD", "PUT comp=block", "PUT comp=block", "PUT comp=block", "PUT comp=blocklist"),
                SENT);
        assertTrue(written.checksum().isEmpty(), "the service reports no MD5 of a blob of blocks");
    }

    /**
     * A conditional commit that Azurite carries out but whose answer is lost is retried, refused because the blob
     * now exists, and then found to be this upload's own: it stands, once for a Put Blob and once for a Put Block
     * List.
     */
    @Test
    void aCommitWhoseAnswerIsLostStandsWhenItsRetryFindsItsOwnBlob() throws Exception {
        AtomicInteger lost = new AtomicInteger();
        BlobServiceClient losing = new BlobServiceClientBuilder().connectionString(azurite.connectionString())
                .addPolicy(new HttpPipelineSyncPolicy() {
                    @Override
                    protected HttpResponse afterReceivedResponse(HttpPipelineCallContext context,
                                                                 HttpResponse response) {
                        String query = context.getHttpRequest().getUrl().getQuery();
                        boolean commit = context.getHttpRequest().getHttpMethod() == HttpMethod.PUT
                                && (query == null || query.equals("comp=blocklist"));
                        if (commit && lost.getAndIncrement() % 2 == 0) {
                            response.close();
                            throw new UncheckedIOException(new IOException("the answer was lost"));
                        }
                        return response;
                    }
                }).buildClient();
        AzureObjectWriter writer = new AzureObjectWriter(losing, RemotePolicy.builder().time(new ManualTime())
                .build());
        byte[] large = new byte[UploadOptions.MIN_PART_SIZE + 1];
        large[UploadOptions.MIN_PART_SIZE] = 5;
        for (byte[] bytes : List.of(new byte[] {1, 2, 3}, large)) {
            Location object = at("lost-" + bytes.length + ".bin");
            try (ObjectUpload upload = writer.create(object, UploadOptions.DEFAULT
                    .withParts(UploadOptions.MIN_PART_SIZE, 1))) {
                upload.write(ByteBuffer.wrap(bytes));
                assertEquals(bytes.length, upload.commit().size());
            }
            try (RandomAccessSource source = reader.open(object)) {
                ByteBuffer back = ByteBuffer.allocate(bytes.length);
                source.readFully(0, back);
                assertArrayEquals(bytes, back.array());
            }
        }
        assertEquals(4, lost.get(), "each commit was sent twice");
    }

    /**
     * The Put Block List's condition. The other writer commits before the late one stages its first block: Azurite
     * refuses a conditional Put Blob of a blob that has uncommitted blocks (409 BlobAlreadyExists), as if it existed.
     */
    @Test
    void aBlobThatAppearsBeforeAPutBlockListIsNotOverwritten() throws Exception {
        Location object = at("raced-blocks.bin");
        try (ObjectUpload late = writer().create(object, UploadOptions.DEFAULT
                .withParts(UploadOptions.MIN_PART_SIZE, 1))) {
            late.write(ByteBuffer.wrap(new byte[] {1}));
            try (ObjectUpload first = writer().create(object, UploadOptions.DEFAULT)) {
                first.write(ByteBuffer.wrap(new byte[] {7}));
                first.commit();
            }
            late.write(ByteBuffer.wrap(new byte[UploadOptions.MIN_PART_SIZE]));
            StorageException refused = assertThrows(StorageException.class, late::commit);
            assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
            assertTrue(refused.getMessage().contains(object.display()), refused.getMessage());
            assertTrue(refused.getMessage().contains("Put Block List"), refused.getMessage());
        }
        assertEquals(1, azurite.client().getBlobContainerClient(CONTAINER).getBlobClient(
                object.text().substring(("az://" + CONTAINER + "/").length())).getProperties().getBlobSize());
    }
}
