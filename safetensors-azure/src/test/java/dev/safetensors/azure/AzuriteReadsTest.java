package dev.safetensors.azure;

import com.azure.storage.blob.BlobClient;
import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.azure.testing.Azurite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What reads cost and what they catch against a real Azurite: requests, pinning, snapshots, the location forms. */
class AzuriteReadsTest {
    private static Azurite azurite;
    private static AzureSourceProvider configured;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        // the way the command is configured: account, key and endpoint, as the environment variables give them
        configured = new AzureSourceProvider(AzureClientOptions.builder().account(Azurite.ACCOUNT).key(Azurite.KEY)
                .endpoint(azurite.endpoint()).build());
    }

    @AfterAll
    static void stop() {
        if (configured != null) {
            configured.close();
        }
    }

    /** A small safetensors file: one F32 tensor of four values. */
    static byte[] tinySafetensors() {
        byte[] header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}  "
                .getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length).put(header);
        return b.array();
    }

    @Test
    void theHeaderPrefixReadOfASmallFileIsOneRangedGet() throws Exception {
        byte[] file = tinySafetensors();
        azurite.put("models", "tiny.safetensors", file);
        try (RandomAccessSource source = configured.open(Location.parse("az://models/tiny.safetensors"))) {
            // what the header reader does: one read of the prefix, 128 KiB, which the whole small file answers
            ByteBuffer prefix = ByteBuffer.allocate(128 * 1024);
            assertEquals(file.length, source.read(0, prefix));
            assertEquals(file.length, source.size(), "the size came with the same answer");
            assertArrayEquals(file, Arrays.copyOf(prefix.array(), file.length));
            SourceStatistics s = source.statistics();
            assertEquals(1, s.requests());
            assertEquals(1, s.exchanges());
            assertEquals(file.length, s.bytesRead());
        }
    }

    @Test
    void aBlobOverwrittenBetweenReadsIsSourceChanged() throws Exception {
        azurite.put("models", "changing.safetensors", new byte[1000]);
        try (RandomAccessSource source = configured.open(Location.parse("az://models/changing.safetensors"))) {
            source.read(0, ByteBuffer.allocate(10));
            byte[] replaced = new byte[1000];
            Arrays.fill(replaced, (byte) 7);
            azurite.put("models", "changing.safetensors", replaced);

            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> source.read(500, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        }
    }

    @Test
    void aSnapshotIsReadAfterTheBlobChanged() throws Exception {
        byte[] first = new byte[100];
        Arrays.fill(first, (byte) 1);
        azurite.put("models", "snap.safetensors", first);
        BlobClient blob = azurite.client().getBlobContainerClient("models").getBlobClient("snap.safetensors");
        String snapshot = blob.createSnapshot().getSnapshotId();
        azurite.put("models", "snap.safetensors", new byte[50]);

        try (RandomAccessSource source = configured.open(Location.parse("az://models/snap.safetensors?snapshot="
                + snapshot))) {
            assertEquals(100, source.size());
            byte[] got = new byte[100];
            source.readFully(0, ByteBuffer.wrap(got));
            assertArrayEquals(first, got);
            assertEquals(snapshot, source.identity().version());
        }
    }

    @Test
    void abfssAndAzureLocationsOfTheConfiguredAccountReadTheSameBlob() throws Exception {
        byte[] file = tinySafetensors();
        azurite.put("lake", "dir/tiny.safetensors", file);
        for (String location : new String[]{"abfss://lake@" + Azurite.ACCOUNT + ".dfs.core.windows.net/dir/tiny.safetensors",
                "azure://lake/dir/tiny.safetensors"}) {
            try (RandomAccessSource source = configured.open(Location.parse(location))) {
                assertEquals(file.length, source.size(), location);
            }
        }
    }

    @Test
    void anApplicationsOwnClientIsUsedAsItIs() throws Exception {
        azurite.put("models", "own.safetensors", new byte[64]);
        try (AzureSourceProvider own = new AzureSourceProvider(azurite.client());
             RandomAccessSource source = own.open(Location.parse("az://models/own.safetensors"))) {
            assertEquals(64, source.size());
            assertEquals(1, source.statistics().exchanges());
        }
    }

    @Test
    void aMissingBlobOrContainerIsNotFoundWithTheServiceCode() throws Exception {
        azurite.put("models", "present.safetensors", new byte[1]);
        try (RandomAccessSource source = configured.open(Location.parse("az://models/absent.safetensors"))) {
            SourceNotFoundException e = assertThrows(SourceNotFoundException.class, source::size);
            assertEquals(ErrorCode.NOT_FOUND, e.code());
            assertTrue(e.getMessage().contains("BlobNotFound"), e.getMessage());
        }
        try (RandomAccessSource source = configured.open(Location.parse("az://nocontainer/m.safetensors"))) {
            SourceNotFoundException e = assertThrows(SourceNotFoundException.class, source::size);
            assertTrue(e.getMessage().contains("ContainerNotFound"), e.getMessage());
        }
    }
}
