package dev.safetensors.s3;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Inspecting and copying from checkpoints stored in s3proxy, opened by URI as a user would. */
class S3ProxyInspectionTest {
    private static S3ProxyServer s3;
    private static S3SourceProvider provider;

    @BeforeAll
    static void start() throws Exception {
        s3 = S3ProxyServer.shared();
        // The provider's own client: keys and region come from the SDK's configuration chain.
        provider = new S3SourceProvider(s3.options());
    }


    @Test
    void inspectingASmallHeaderIsOneGetAndCopyingTheTensorOneMore() throws Exception {
        int headerBytes = 50_000;
        int dataBytes = 300_000;
        byte[] file = SampleCheckpoint.file(headerBytes, dataBytes);
        s3.put("small-header.safetensors", file);
        try (RandomAccessSource source = provider.open(Location.parse("s3://checkpoints/small-header.safetensors"))) {
            byte[] header = HeaderPrefixRead.header(source);
            assertArrayEquals(Arrays.copyOfRange(file, 8, 8 + headerBytes), header);
            assertEquals(new SourceStatistics(1, HeaderPrefixRead.PREFETCH_BYTES, 1), source.statistics());
            assertEquals(file.length, source.size());

            byte[] tensor = new byte[dataBytes];
            try (ReadableByteChannel channel = source.openRange(8 + headerBytes, dataBytes)) {
                ByteBuffer dst = ByteBuffer.wrap(tensor);
                while (channel.read(dst) >= 0) {
                    assertEquals(2, source.statistics().requests());
                }
            }
            assertArrayEquals(Arrays.copyOfRange(file, 8 + headerBytes, file.length), tensor);
            assertEquals(new SourceStatistics(2, HeaderPrefixRead.PREFETCH_BYTES + dataBytes, 2), source.statistics());
            assertFalse(source.attributes().get("etag").isEmpty());
        }
    }

    @Test
    void inspectingALargeHeaderIsTwoGets() throws Exception {
        int headerBytes = 2_000_000;
        byte[] file = SampleCheckpoint.file(headerBytes, 1000);
        s3.put("large-header.safetensors", file);
        try (RandomAccessSource source = provider.open(Location.parse("s3://checkpoints/large-header.safetensors"))) {
            byte[] header = HeaderPrefixRead.header(source);
            assertArrayEquals(Arrays.copyOfRange(file, 8, 8 + headerBytes), header);
            assertEquals(new SourceStatistics(2, 8 + headerBytes, 2), source.statistics());
        }
    }

    @Test
    void anObjectOverwrittenBetweenReadsIsASourceChange() throws Exception {
        s3.put("changing.safetensors", SampleCheckpoint.file(64, 1000));
        try (RandomAccessSource source = provider.open(Location.parse("s3://checkpoints/changing.safetensors"))) {
            source.readFully(0, ByteBuffer.allocate(100));
            s3.put("changing.safetensors", SampleCheckpoint.file(64, 2000));
            assertThrows(SourceChangedException.class, () -> source.readFully(100, ByteBuffer.allocate(100)));
        }
    }

    @Test
    void aMissingObjectOrBucketIsNoSuchFile() throws Exception {
        try (RandomAccessSource key = provider.open(Location.parse("s3://checkpoints/absent.safetensors"));
             RandomAccessSource bucket = provider.open(Location.parse("s3://no-such-bucket/m.safetensors"))) {
            assertEquals("s3://checkpoints/absent.safetensors",
                    assertThrows(NoSuchFileException.class, () -> key.read(0, ByteBuffer.allocate(8))).getFile());
            assertThrows(NoSuchFileException.class, () -> bucket.read(0, ByteBuffer.allocate(8)));
            assertThrows(NoSuchFileException.class, key::size);
        }
    }
}
