package dev.safetensors.gcs;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Map;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class DefaultStorageTest {

    @Test
    void theEmulatorHostMeansThatHostAndNoCredentials() throws Exception {
        try (GcsTestServer server = new GcsTestServer()) {
            server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
            FakeGcsObjects.put("emu", "m.safetensors", new byte[] {1, 2, 3}, 9);
            Storage storage = DefaultStorage.create(Map.of(DefaultStorage.EMULATOR_HOST,
                    "127.0.0.1:" + server.wireMock.port()));
            assertSame(NoCredentials.getInstance(), storage.getOptions().getCredentials());
            assertEquals("emulator", storage.getOptions().getProjectId());
            try (GcsSource s = GcsSource.open(storage, BlobId.of("emu", "m.safetensors"))) {
                assertEquals(3, s.read(0, ByteBuffer.allocate(10)));
            }
            assertNull(server.wireMock.getAllServeEvents().get(0).getRequest().getHeader("Authorization"));
        }
    }

    @Test
    void anEmulatorHostWithAPasswordIsRefusedAndNeverShown() {
        dev.safetensors.StorageException e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.safetensors.StorageException.class, () -> DefaultStorage.create(Map.of(DefaultStorage.EMULATOR_HOST,
                        "http://user:PASSWORD@127.0.0.1:1")));
        assertEquals(dev.safetensors.ErrorCode.INVALID_ENDPOINT, e.code());
        org.junit.jupiter.api.Assertions.assertFalse(e.getMessage().contains("PASSWORD"), e.getMessage());
    }
}
