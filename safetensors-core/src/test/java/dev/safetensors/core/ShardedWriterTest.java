package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.StorageException;
import dev.safetensors.TensorInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shards sized as the hub sizes them, an index that passes the cross-checks, all or nothing. */
class ShardedWriterTest {
    @TempDir
    Path dir;

    /** Ten U8 tensors of 10, 20, ... 100 bytes. */
    private static ShardedWriter tens(long max) {
        ShardedWriter w = ShardedWriter.create(max).metadata("format", "pt");
        for (int i = 1; i <= 10; i++) {
            w.tensor("t" + i, DType.U8, new long[] {10L * i}, StreamingWriterTest.random(10 * i, i));
        }
        return w;
    }

    @Test
    void splitsAsTheHubDoesAndTheIndexPassesTheCrossChecks() throws IOException {
        List<Path> written = tens(150).writeTo(dir);
        // 10+20+30+40+50 = 150; 60+70 = 130; 80; 90; 100
        List<String> names = written.stream().map(p -> p.getFileName().toString()).toList();
        assertEquals(List.of("model-00001-of-00005.safetensors", "model-00002-of-00005.safetensors",
                "model-00003-of-00005.safetensors", "model-00004-of-00005.safetensors",
                "model-00005-of-00005.safetensors", "model.safetensors.index.json"), names);
        ShardIndex index = ShardIndex.parse("index", Files.readAllBytes(written.get(5)));
        Map<String, SafetensorsHeader> headers = new LinkedHashMap<>();
        for (Path shard : written.subList(0, 5)) {
            SafetensorsHeader h = Safetensors.readHeader(shard);
            assertEquals(Map.of("format", "pt"), h.metadata(), "every shard carries the metadata");
            headers.put(shard.getFileName().toString(), h);
        }
        assertEquals(550, index.verifyAgainst(headers));
        assertEquals(550, index.totalSize().orElseThrow());
        assertEquals(List.of("t1", "t2", "t3", "t4", "t5"), names(headers.get("model-00001-of-00005.safetensors")));
        assertEquals(List.of("t6", "t7"), names(headers.get("model-00002-of-00005.safetensors")));
        try (SafetensorsFile f = SafetensorsFile.open(written.get(4))) {
            assertEquals(ByteBuffer.wrap(StreamingWriterTest.random(100, 10)), f.readBytes("t10"));
        }
    }

    @Test
    void aTensorLargerThanTheMaximumGetsAShardOfItsOwnBeforeTheOneBeingFilled() throws IOException {
        ShardedWriter w = ShardedWriter.create(25).prefix("m")
                .tensor("a", DType.U8, new long[] {10}, new byte[10])
                .tensor("huge", DType.U8, new long[] {100}, StreamingWriterTest.random(100, 7))
                .tensor("b", DType.U8, new long[] {10}, new byte[10]);
        List<Path> written = w.writeTo(dir);
        assertEquals(3, written.size());
        assertEquals(List.of("huge"), names(Safetensors.readHeader(written.get(0))));
        assertEquals(List.of("a", "b"), names(Safetensors.readHeader(written.get(1))));
        assertEquals("m.safetensors.index.json", written.get(2).getFileName().toString());
    }

    @Test
    void everythingInOneShardIsOneFileWithoutAnIndex() throws IOException {
        List<Path> written = tens(1_000_000).writeTo(dir);
        assertEquals(List.of(dir.resolve("model.safetensors")), written);
        assertEquals(10, Safetensors.readHeader(written.get(0)).tensors().size());
    }

    @Test
    void existingFilesAreRefusedUnlessReplacing() throws IOException {
        Path existing = Files.write(dir.resolve("model-00002-of-00005.safetensors"), new byte[] {7});
        StorageException e = assertThrows(StorageException.class, () -> tens(150).writeTo(dir));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
        assertEquals(Set.of("model-00002-of-00005.safetensors"), Set.of(dir.toFile().list()), "nothing written");
        assertArrayEquals(new byte[] {7}, Files.readAllBytes(existing));
        tens(150).replaceExisting(true).writeTo(dir);
        assertEquals(6, dir.toFile().list().length);
    }

    @Test
    void aFailingSourceLeavesTheDirectoryAsItWas() throws IOException {
        ShardedWriter w = tens(150).tensor("short", DType.U8, new long[] {8},
                TensorSource.of(Channels.newChannel(new ByteArrayInputStream(new byte[5])), 8));
        StorageException e = assertThrows(StorageException.class, () -> w.writeTo(dir));
        assertEquals(ErrorCode.TRUNCATED, e.code());
        assertEquals(0, dir.toFile().list().length, "no shard, no index, no temporary file");
    }

    @Test
    void metadataAndNamesFollowTheStrictRulesBeforeAnythingIsWritten() {
        InvalidHeaderException tooLong = assertThrows(InvalidHeaderException.class,
                () -> tens(150).metadata("k", "v".repeat(65_537)).writeTo(dir));
        assertEquals(ErrorCode.STRING_TOO_LONG, tooLong.code());
        InvalidHeaderException twice = assertThrows(InvalidHeaderException.class,
                () -> tens(150).tensor("t1", DType.U8, new long[] {1}, new byte[1]).writeTo(dir));
        assertEquals(ErrorCode.DUPLICATE_KEY, twice.code());
        assertEquals(0, dir.toFile().list().length);
        assertThrows(IllegalArgumentException.class, () -> ShardedWriter.create(10).prefix("../x"));
        assertThrows(IllegalArgumentException.class, () -> ShardedWriter.create(0));
    }

    private static List<String> names(SafetensorsHeader h) {
        List<String> names = new ArrayList<>();
        for (TensorInfo t : h.tensors()) {
            names.add(t.name());
        }
        return names;
    }
}
