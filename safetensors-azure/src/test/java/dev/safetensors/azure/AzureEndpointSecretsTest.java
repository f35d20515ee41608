package dev.safetensors.azure;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A password in the user information of a configured endpoint is refused before any request and never shown,
 * whether the endpoint comes from a connection string's {@code BlobEndpoint} or from
 * {@code AZURE_STORAGE_BLOB_ENDPOINT}; and a connection refused by the endpoint's host says so, naming host and
 * port, after the policy's attempts (waited on an injected clock).
 *
 * <p>Alone ({@code @Isolated}): it sets the {@code AZURE_STORAGE_*} system properties, which every Azure client built
 * from the defaults reads.
 */
@Isolated
class AzureEndpointSecretsTest {
    private static final String KEY = "c2VjcmV0LWtleS10aGF0LW11c3QtbmV2ZXItc2hvdw==";
    private static final RemotePolicy POLICY = RemotePolicy.builder().time(new ManualTime()).maxAttempts(5).build();

    /** Every message in the failure, its causes and suppressed failures, and its stack trace's text. */
    private static String everything(Throwable e) {
        java.io.StringWriter w = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    private static void assertRefusedUnshown(AzureSourceProvider provider, String... secrets) {
        StorageException listed = assertThrows(StorageException.class, () -> provider.list(
                Location.parse("az://models/"), ListOptions.DEFAULT));
        StorageException opened = assertThrows(StorageException.class, () -> provider.open(
                Location.parse("az://models/m.safetensors")));
        for (StorageException e : new StorageException[]{listed, opened}) {
            assertEquals(ErrorCode.INVALID_ENDPOINT, e.code(), e.getMessage());
            for (String secret : secrets) {
                assertFalse(everything(e).contains(secret), everything(e));
            }
        }
    }

    @Test
    void aPasswordInTheBlobEndpointOfAConnectionStringIsRefusedAndNeverShown() {
        for (String endpoint : new String[]{"http://user:PASSWORD@127.0.0.1:1/devstoreaccount1",
                "http://user:PASS/WORD@127.0.0.1:1/devstoreaccount1", "http://user:PASS#WORD@127.0.0.1:1/"}) {
            AzureClientOptions o = AzureClientOptions.builder().entraId(false).connectionString(
                    "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + KEY + ";BlobEndpoint="
                            + endpoint + ";").build();
            assertRefusedUnshown(new AzureSourceProvider(o, POLICY), "PASS", "user:", KEY);
        }
    }

    @Test
    void aPasswordInAzureStorageBlobEndpointIsRefusedAndNeverShown() {
        String endpoint = "http://user:PASSWORD@127.0.0.1:1/devstoreaccount1";
        IllegalArgumentException built = assertThrows(IllegalArgumentException.class,
                () -> AzureClientOptions.builder().endpoint(endpoint));
        assertFalse(built.getMessage().contains("PASSWORD") || built.getMessage().contains("user:"), built.getMessage());
        String before = System.getProperty(AzureClientOptions.BLOB_ENDPOINT);
        String account = System.getProperty(AzureClientOptions.ACCOUNT);
        System.setProperty(AzureClientOptions.BLOB_ENDPOINT, endpoint);
        System.setProperty(AzureClientOptions.ACCOUNT, "devstoreaccount1");
        try {
            // the provider ServiceLoader makes: options read from the environment and system properties
            assertRefusedUnshown(new AzureSourceProvider((AzureClientOptions) null, POLICY), "PASSWORD", "user:");
        } finally {
            restore(AzureClientOptions.BLOB_ENDPOINT, before);
            restore(AzureClientOptions.ACCOUNT, account);
        }
    }

    private static void restore(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }

    @Test
    void aRefusedConnectionNamesTheHostAndPortAfterEveryAttempt() throws IOException {
        int port;
        // a port that was just free on loopback: nothing listens there now, so the connection is refused
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        AzureClientOptions o = AzureClientOptions.builder().entraId(false).account("devstoreaccount1").key(KEY)
                .endpoint("http://127.0.0.1:" + port + "/devstoreaccount1").build();
        try (RandomAccessSource source = new AzureSourceProvider(o, POLICY).open(
                Location.parse("az://models/m.safetensors"))) {
            StorageException e = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(8)));
            assertEquals(ErrorCode.NETWORK, e.code());
            assertTrue(e.getMessage().endsWith("failed after 5 attempts: connection refused by 127.0.0.1:" + port
                    + " [NETWORK]"), e.getMessage());
            assertFalse(e.getMessage().contains("null"), e.getMessage());
        }
    }
}
