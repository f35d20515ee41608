package dev.safetensors.azure;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The locations Azure users write, and the ones refused. */
class AzureLocationTest {
    @Test
    void azNamesAContainerAndABlobInTheConfiguredAccount() throws Exception {
        AzureLocation l = AzureLocation.parse(URI.create("az://models/llama/model-00001.safetensors"));
        assertEquals(new AzureLocation("az", null, null, "models", "llama/model-00001.safetensors", null, null), l);
        assertEquals("az://models/llama/model-00001.safetensors", l.name());
    }

    @Test
    void azureIsTheSameAsAz() throws Exception {
        AzureLocation l = AzureLocation.parse(URI.create("azure://models/m.safetensors"));
        assertEquals("azure", l.scheme());
        assertEquals("models", l.container());
        assertNull(l.account());
    }

    @Test
    void abfssNamesContainerAccountAndCloud() throws Exception {
        AzureLocation l = AzureLocation.parse(URI.create(
                "abfss://models@myaccount.dfs.core.windows.net/dir/m.safetensors"));
        assertEquals(new AzureLocation("abfss", "myaccount", "core.windows.net", "models", "dir/m.safetensors", null,
                null), l);
        assertEquals("abfss://models@myaccount.dfs.core.windows.net/dir/m.safetensors", l.name());
        AzureLocation china = AzureLocation.parse(URI.create("abfs://mdl@acc.dfs.core.chinacloudapi.cn/a.safetensors"));
        assertEquals("core.chinacloudapi.cn", china.endpointSuffix());
        AzureLocation blobHost = AzureLocation.parse(URI.create("abfss://mdl@acc.blob.core.windows.net/a.safetensors"));
        assertEquals("acc", blobHost.account());
    }

    @Test
    void aVersionOrASnapshotIsPinnedFromTheQuery() throws Exception {
        AzureLocation v = AzureLocation.parse(URI.create("az://c01/m.safetensors?versionid=2026-01-02T03:04:05.0000000Z"));
        assertEquals("2026-01-02T03:04:05.0000000Z", v.versionId());
        assertEquals("az://c01/m.safetensors", v.name(), "the name carries no query");
        AzureLocation s = AzureLocation.parse(URI.create("az://c01/m.safetensors?snapshot=2026-01-02T03:04:05.1234567Z"));
        assertEquals("2026-01-02T03:04:05.1234567Z", s.snapshot());
        assertNull(s.versionId());
    }

    @Test
    void percentEncodedNamesAreDecoded() throws Exception {
        assertEquals("dir/a b.safetensors", AzureLocation.parse(URI.create("az://c01/dir/a%20b.safetensors")).blob());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "az://models/",                                  // no blob
            "az://models",                                   // no blob
            "az://models/dir/",                              // a folder: listing is not a blob
            "az://Models/m.safetensors",                     // upper case container
            "az://ab/m.safetensors",                         // container too short
            "az://a--b/m.safetensors",                       // double hyphen
            "az://acct@models/m.safetensors",                // account belongs in the configuration
            "az://models/m.safetensors?sig=abc",             // a SAS does not go in the location
            "az://models/m.safetensors?versionid=1&snapshot=2",
            "az://models/m.safetensors?versionid=",
            "az://models/m.safetensors#frag",
            "abfss://myaccount.dfs.core.windows.net/m.safetensors",  // no container
            "abfss://models@myaccount.example.com/m.safetensors",    // not a storage host
            "abfss://models@MY_ACCOUNT.dfs.core.windows.net/m.safetensors",
            "s3://models/m.safetensors",
    })
    void malformedLocationsAreInvalidSource(String location) {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> AzureLocation.parse(URI.create(location)));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertFalse(e.getMessage().contains("sig=abc"), e.getMessage());
    }

    @Test
    void isAzureKnowsTheFourSchemes() {
        for (String s : new String[]{"az", "AZURE", "abfss", "abfs"}) {
            assertTrue(AzureLocation.isAzure(URI.create(s + "://c01/b")), s);
        }
        assertFalse(AzureLocation.isAzure(URI.create("https://acct.blob.core.windows.net/c01/b")),
                "https stays with the HTTP backend");
        assertFalse(AzureLocation.isAzure(URI.create("wasbs://c01@acct.blob.core.windows.net/b")));
    }
}
