package dev.safetensors.azure;

import com.azure.storage.blob.BlobServiceClient;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which account, endpoint and credential a location gets; no secret in any message. */
class AzureClientOptionsTest {
    private static final String KEY = "c2VjcmV0LWtleS10aGF0LW11c3QtbmV2ZXItc2hvdw==";
    private static final String CONNECTION = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + KEY
            + ";EndpointSuffix=core.windows.net";

    private static AzureLocation location(String uri) throws Exception {
        return AzureLocation.parse(URI.create(uri));
    }

    @Test
    void theEnvironmentVariablesAzureUsersSetAreRead() throws Exception {
        AzureClientOptions o = AzureClientOptions.fromEnvironment(Map.of("AZURE_STORAGE_ACCOUNT", "Acct",
                "AZURE_STORAGE_KEY", KEY));
        assertEquals("acct", o.account());
        assertEquals("shared key", o.credentialKind());
        BlobServiceClient client = o.buildClient(location("az://models/m.safetensors"));
        assertEquals("https://acct.blob.core.windows.net", client.getAccountUrl());
        assertFalse(o.toString().contains(KEY), o.toString());
    }

    @Test
    void aSasTokenIsACredentialAndNeverShown() {
        AzureClientOptions o = AzureClientOptions.fromEnvironment(Map.of("AZURE_STORAGE_ACCOUNT", "acct",
                "AZURE_STORAGE_SAS_TOKEN", "?sv=2024-11-04&sig=TOPSECRET"));
        assertEquals("SAS token", o.credentialKind());
        assertFalse(o.toString().contains("TOPSECRET"), o.toString());
    }

    @Test
    void aConnectionStringWinsAndNamesTheAccount() throws Exception {
        AzureClientOptions o = AzureClientOptions.fromEnvironment(Map.of("AZURE_STORAGE_CONNECTION_STRING", CONNECTION,
                "AZURE_STORAGE_ACCOUNT", "other"));
        assertEquals("connection string", o.credentialKind());
        assertEquals("acct", o.buildClient(location("az://models/m.safetensors")).getAccountName());
        assertFalse(o.toString().contains(KEY), o.toString());
        StorageException e = assertThrows(StorageException.class,
                () -> o.buildClient(location("abfss://models@elsewhere.dfs.core.windows.net/m.safetensors")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertFalse(e.getMessage().contains(KEY), e.getMessage());
    }

    @Test
    void aMalformedConnectionStringIsNotQuoted() {
        AzureClientOptions o = AzureClientOptions.builder().connectionString("AccountKey=" + KEY + ";nonsense").build();
        StorageException e = assertThrows(StorageException.class,
                () -> o.buildClient(location("az://models/m.safetensors")));
        assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
        assertFalse(e.getMessage().contains(KEY), e.getMessage());
    }

    @Test
    void anAzLocationWithoutAnAccountSaysWhatToSet() {
        StorageException e = assertThrows(StorageException.class,
                () -> AzureClientOptions.NONE.buildClient(location("az://models/m.safetensors")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertTrue(e.getMessage().contains("AZURE_STORAGE_ACCOUNT"), e.getMessage());
    }

    @Test
    void abfssTakesAccountAndCloudFromItsHost() throws Exception {
        BlobServiceClient client = AzureClientOptions.builder().entraId(false).build()
                .buildClient(location("abfss://models@acct.dfs.core.usgovcloudapi.net/m.safetensors"));
        assertEquals("https://acct.blob.core.usgovcloudapi.net", client.getAccountUrl());
    }

    @Test
    void theConfiguredEndpointServesTheConfiguredAccountOnly() throws Exception {
        AzureClientOptions o = AzureClientOptions.builder().account("devstoreaccount1").key(KEY)
                .endpoint("http://127.0.0.1:10000/devstoreaccount1").entraId(false).build();
        assertEquals("http://127.0.0.1:10000/devstoreaccount1",
                o.buildClient(location("az://models/m.safetensors")).getAccountUrl());
        assertEquals("http://127.0.0.1:10000/devstoreaccount1", o.buildClient(
                location("abfss://models@devstoreaccount1.dfs.core.windows.net/m.safetensors")).getAccountUrl());
        assertEquals("https://other.blob.core.windows.net", o.buildClient(
                location("abfss://models@other.dfs.core.windows.net/m.safetensors")).getAccountUrl());
    }

    @Test
    void anEndpointThatIsNotAnHttpUrlIsRefusedWithoutShowingItsQuery() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AzureClientOptions.builder().endpoint("ftp://host/x?sig=TOPSECRET"));
        assertFalse(e.getMessage().contains("TOPSECRET"), e.getMessage());
    }

    @Test
    void entraIdOverPlainHttpIsACodedFailure() {
        // azure-identity is on this module's test class path; a bearer token is never sent over http
        AzureClientOptions o = AzureClientOptions.builder().account("acct").endpoint("http://127.0.0.1:1/acct").build();
        StorageException e = assertThrows(StorageException.class,
                () -> o.buildClient(location("az://models/m.safetensors")));
        assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
    }
}
