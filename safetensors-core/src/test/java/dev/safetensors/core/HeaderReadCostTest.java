package dev.safetensors.core;

import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The data path's promise: one read for a header that fits the prefix, two for a larger one, no byte more. */
class HeaderReadCostTest {
    @TempDir
    Path dir;

    @Test
    void aSmallHeaderCostsOneReadOfThePrefix() throws Exception {
        Path file = dir.resolve("small.safetensors");
        byte[] bytes = SafetensorsFixture.create().tensor("w", "F32", 300_000).build();
        Files.write(file, bytes);
        try (FileSource s = FileSource.open(file)) {
            Safetensors.readHeader(s);
            assertEquals(new SourceStatistics(1, 128 * 1024, 0), s.statistics());
        }
    }

    @Test
    void aFileSmallerThanThePrefixIsReadOnceWhole() throws Exception {
        Path file = dir.resolve("tiny.safetensors");
        byte[] bytes = SafetensorsFixture.create().tensor("w", "F32", 4).build();
        Files.write(file, bytes);
        try (FileSource s = FileSource.open(file)) {
            Safetensors.readHeader(s);
            assertEquals(new SourceStatistics(1, bytes.length, 0), s.statistics());
        }
    }

    @Test
    void aLargerHeaderCostsExactlyOneMoreReadOfTheMissingBytes() throws Exception {
        SafetensorsFixture f = SafetensorsFixture.create();
        for (int i = 0; i < 4000; i++) {
            f.tensor("model.layers." + i + ".weight", "BF16", 16, 16);
        }
        Path file = dir.resolve("large.safetensors");
        Files.write(file, f.build());
        try (FileSource s = FileSource.open(file)) {
            SafetensorsHeader h = Safetensors.readHeader(s);
            assertEquals(4000, h.tensors().size());
            assertEquals(2, s.statistics().requests());
            assertEquals(8 + h.headerLength(), s.statistics().bytesRead());
        }
    }

    @Test
    void aSmallerPrefixIsHonoured() throws Exception {
        Path file = dir.resolve("p.safetensors");
        Files.write(file, SafetensorsFixture.create().tensor("weight", "F32", 1000).build());
        try (FileSource s = FileSource.open(file)) {
            SafetensorsHeader h = Safetensors.readHeader(s, Limits.builder().prefetchBytes(16).build());
            assertEquals(2, s.statistics().requests());
            assertEquals(8 + h.headerLength(), s.statistics().bytesRead());
        }
    }

    @Test
    void aTwoGigabyteSparseFileCostsOnlyItsPrefix() throws Exception {
        long elements = (2L << 30) / 4;
        Path file = dir.resolve("sparse.safetensors");
        byte[] head = SafetensorsFixture.create().tensor("big", "F32", elements).payloadLength(0).build();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(head);
            raf.setLength(head.length + elements * 4);
        }
        try (FileSource s = FileSource.open(file)) {
            SafetensorsHeader h = Safetensors.readHeader(s);
            assertEquals(elements * 4, h.tensors().get(0).byteLength());
            assertEquals(new SourceStatistics(1, 128 * 1024, 0), s.statistics());
        }
    }
}
