package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.fixtures.MemorySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What reading an index costs: one read when it fits the first read, one more ranged stream otherwise, no size probe. */
class ShardIndexReadTest {
    @TempDir
    Path dir;

    private static byte[] index(int tensors) {
        StringBuilder json = new StringBuilder("{\"metadata\":{\"total_size\":0},\"weight_map\":{");
        for (int i = 0; i < tensors; i++) {
            json.append(i == 0 ? "" : ",").append("\"model.layers.").append(i).append(".weight\":\"model-0000")
                    .append(1 + i % 2).append("-of-00002.safetensors\"");
        }
        return json.append("}}").toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anIndexThatFitsTheFirstReadCostsOneRead() throws IOException {
        byte[] json = index(100);
        MemorySource source = new MemorySource("model.safetensors.index.json", json);
        ShardIndex read = ShardIndex.read(source);
        assertEquals(100, read.weightMap().size());
        assertEquals(new SourceStatistics(1, json.length, 0), source.statistics());
    }

    @Test
    void aLargerIndexCostsExactlyOneMoreRangeStreamingTheRest() throws IOException {
        byte[] json = index(10_000);
        assertTrue(json.length > ShardIndex.FIRST_READ, json.length + " bytes");
        MemorySource source = new MemorySource("model.safetensors.index.json", json);
        assertEquals(10_000, ShardIndex.read(source).weightMap().size());
        // one read, then one ranged stream of the rest (one request on a remote source; this memory source serves a
        // range through positional reads, so only the range and the byte total are meaningful here)
        assertEquals(1, source.rangesOpened());
        assertEquals(json.length, source.statistics().bytesRead());
    }

    @Test
    void anIndexOfExactlyTheFirstReadIsReadWhole() throws IOException {
        byte[] one = index(1);
        byte[] exact = new byte[ShardIndex.FIRST_READ];
        System.arraycopy(one, 0, exact, 0, one.length - 2);
        Arrays.fill(exact, one.length - 2, exact.length - 2, (byte) ' ');
        exact[exact.length - 2] = '}';
        exact[exact.length - 1] = '}';
        MemorySource source = new MemorySource("model.safetensors.index.json", exact);
        assertEquals(1, ShardIndex.read(source).weightMap().size());
        assertEquals(ShardIndex.FIRST_READ, source.statistics().bytesRead());
    }

    @Test
    void anOversizedIndexIsRefusedAfterItsFirstRead() throws IOException {
        Path huge = dir.resolve("model.safetensors.index.json");
        try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
            f.setLength(dev.safetensors.CheckpointLimits.DEFAULT_MAX_INDEX_BYTES + 1L);
        }
        try (FileSource source = FileSource.open(huge)) {
            InvalidHeaderException e = assertThrows(InvalidHeaderException.class, () -> ShardIndex.read(source));
            assertEquals(ErrorCode.INVALID_INDEX, e.code());
            assertTrue(e.getMessage().contains("more than the limit"), e.getMessage());
            assertEquals(new SourceStatistics(1, ShardIndex.FIRST_READ, 0), source.statistics());
        }
    }
}
