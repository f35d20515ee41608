package dev.safetensors.core;

import dev.safetensors.Limits;
import dev.safetensors.SourceStatistics;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cost of one operation from cumulative statistics: {@link SourceStatistics#minus} of two snapshots and
 * {@link SourceStatistics#since}, on a remote-like source whose every read is a request.
 */
class ReadCostTest {
    @Test
    void theDifferenceOfTwoSnapshotsIsTheCostOfTheReadBetweenThem() throws IOException {
        // 1 MiB of F32 past the 128 KiB prefix: reading the tensor costs requests the header did not
        byte[] file = SafetensorsFixture.create().tensor("a", "F32", 256, 1024).tensor("b", "F32", 16).build();
        MemorySource source = MemorySource.remoteLike(file);
        try (SafetensorsFile f = SafetensorsFile.open(source, Limits.STRICT, false,
                ReadOptions.builder().parallelism(1).build())) {
            SourceStatistics afterHeader = source.statistics();
            f.readBytes("a");
            SourceStatistics afterA = source.statistics();
            SourceStatistics costOfA = afterA.minus(afterHeader);
            assertEquals(1, costOfA.requests(), "one ranged read for the tensor");
            assertTrue(costOfA.bytesRead() > 0 && costOfA.bytesRead() <= 256 * 1024 * 4,
                    "at most the tensor's bytes: " + costOfA);
            assertEquals(afterA, afterHeader.plus(costOfA), "minus undoes plus");

            Supplier<SourceStatistics> cost = SourceStatistics.since(source::statistics);
            assertEquals(SourceStatistics.NONE, cost.get(), "nothing spent yet");
            f.readBytes("a");
            assertEquals(costOfA, cost.get(), "the same read costs the same");
            f.readBytes("a");
            assertEquals(costOfA.plus(costOfA), cost.get(), "each get() measures from the start");
        }
    }
}
