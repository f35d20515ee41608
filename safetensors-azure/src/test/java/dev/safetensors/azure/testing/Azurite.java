package dev.safetensors.azure.testing;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.options.BlobParallelUploadOptions;
import dev.safetensors.azure.AzureClientOptions;
import dev.safetensors.fixtures.AzuriteProcess;

import java.io.IOException;

/**
 * The Azure SDK side of an Azurite started by the test kit's {@link AzuriteProcess} (which finds, starts and stops
 * the emulator, and skips or fails where it is not installed): a client of the development account, blob uploads, and
 * the {@code AZURE_STORAGE_*} system properties that configure the backend {@link java.util.ServiceLoader} builds.
 *
 * <p>Azurite's well-known development account and key are public: they are not secrets.
 */
public final class Azurite {
    /** The system property that names the {@code azurite-blob} program, overriding the search. */
    public static final String BINARY_PROPERTY = AzuriteProcess.BINARY_PROPERTY;
    /** Azurite's development account. */
    public static final String ACCOUNT = AzuriteProcess.ACCOUNT;
    /** Azurite's development account key (published in Azurite's documentation). */
    public static final String KEY = AzuriteProcess.KEY;

    private static Azurite shared;

    private final AzuriteProcess process;
    private final BlobServiceClient client;

    private Azurite(AzuriteProcess process) {
        this.process = process;
        this.client = new BlobServiceClientBuilder().connectionString(process.connectionString()).buildClient();
    }

    /**
     * @return the test JVM's one Azurite ({@link AzuriteProcess#shared()}), started on first use and stopped when the
     *         JVM exits: for test classes that write containers or blobs of their own, and for backends built once
     *         per JVM, which must all talk to the same server
     * @throws IOException if it does not start (and the test is skipped if Azurite is not installed, as
     *                     {@link AzuriteProcess#start()} says)
     */
    public static synchronized Azurite shared() throws IOException {
        if (shared == null) {
            shared = new Azurite(AzuriteProcess.shared());
        }
        return shared;
    }

    /** @return the blob endpoint, path-style: {@code http://127.0.0.1:PORT/devstoreaccount1} */
    public String endpoint() {
        return process.endpoint();
    }

    /** @return the connection string of the development account at this emulator */
    public String connectionString() {
        return process.connectionString();
    }

    /**
     * Configures the Azure backend that {@link java.util.ServiceLoader} builds (the command's, Spark's) for this
     * Azurite, through the {@code AZURE_STORAGE_*} system properties, which it reads over the environment. They are
     * JVM-wide: a test class that calls this holds {@code @ResourceLock(Resources.SYSTEM_PROPERTIES)}.
     */
    public void configureSystemProperties() {
        System.setProperty(AzureClientOptions.ACCOUNT, ACCOUNT);
        System.setProperty(AzureClientOptions.KEY, KEY);
        System.setProperty(AzureClientOptions.BLOB_ENDPOINT, endpoint());
    }

    /** Clears what {@link #configureSystemProperties()} set. */
    public static void clearSystemProperties() {
        System.clearProperty(AzureClientOptions.ACCOUNT);
        System.clearProperty(AzureClientOptions.KEY);
        System.clearProperty(AzureClientOptions.BLOB_ENDPOINT);
    }

    /** @return a client of the development account, with the SDK's defaults, for setting up blobs */
    public BlobServiceClient client() {
        return client;
    }

    /**
     * Uploads (or overwrites) a blob, creating its container if needed.
     *
     * @param container the container
     * @param blob      the blob name
     * @param content   the bytes
     * @return the new ETag
     */
    public String put(String container, String blob, byte[] content) {
        BlobContainerClient c = client.getBlobContainerClient(container);
        c.createIfNotExists();
        return c.getBlobClient(blob).uploadWithResponse(new BlobParallelUploadOptions(BinaryData.fromBytes(content)),
                null, null).getValue().getETag();
    }
}
