package dev.safetensors.spark;

import org.apache.spark.sql.connector.read.InputPartition;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's side of planning, without a session: partitions keep their groups exactly in a compact form, the
 * packer never splits a group, and the grouping hands files on with a lag bounded whatever the listing's length, so
 * the driver holds no object per listed entry.
 */
class PartitionPlanningTest {
    private static String key(int i) {
        return String.format(Locale.ROOT, "s3://bucket/org-%05d/model-%03d/model-%05d-of-00004.safetensors", i / 800,
                i / 4 % 200, i % 4 + 1);
    }

    @Test
    void aPartitionGivesBackItsGroupsExactlyAndFrontCodedLocationsCostUnderHalfTheirLength() throws Exception {
        List<FileGroup> groups = new ArrayList<>();
        long chars = 0;
        for (int i = 0; i < 1_000; i += 4) {
            List<String> shards = List.of(key(i), key(i + 1), key(i + 2), key(i + 3));
            groups.add(new FileGroup(key(i).replace("model-00001-of-00004.safetensors",
                    "model.safetensors.index.json"), shards, i * 7L));
            chars += shards.stream().mapToInt(String::length).sum() + 60;
        }
        groups.add(FileGroup.of("/data/naïve/\uD83D\uDE00 \uD800 lone.safetensors", -1));
        groups.add(FileGroup.of("", 0));
        groups.add(FileGroup.of("s3://bucket/large.safetensors", Long.MAX_VALUE));
        FilePartition p = new FilePartition(groups);
        assertEquals(groups, p.groups());
        assertEquals(1_003, p.files());
        assertTrue(p.encodedBytes() * 2L < chars, p.encodedBytes() + " bytes for " + chars + " characters");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(p);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertEquals(groups, ((FilePartition) in.readObject()).groups(), "as a task receives it");
        }
    }

    @Test
    void thePackerClosesAPartitionByCountAndBySizeAndNeverSplitsAGroup() {
        PartitionPacker packer = new PartitionPacker(10, 100);
        List<FileGroup> given = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            FileGroup g = i % 3 == 0 ? new FileGroup("i" + i, List.of("a" + i, "b" + i, "c" + i, "d" + i), 8)
                    : FileGroup.of("f" + i, i == 20 ? 500 : 8);
            given.add(g);
            packer.accept(g);
        }
        InputPartition[] partitions = packer.finish();
        List<FileGroup> back = new ArrayList<>();
        for (InputPartition p : partitions) {
            List<FileGroup> groups = ((FilePartition) p).groups();
            int files = groups.stream().mapToInt(g -> g.files().size()).sum();
            long size = groups.stream().mapToLong(FileGroup::bytes).sum();
            assertTrue(files <= 10, "a partition closes at 10 files: " + files);
            assertTrue(size <= 100 || groups.size() == 1, "a partition closes at 100 bytes unless one group is larger");
            back.addAll(groups);
        }
        assertEquals(given, back, "every group once, in order, whole");
    }

    @Test
    void theGroupingHandsFilesOnWithABoundedLagAndEachOnceWithinTheBound() {
        ScanOptions options = ScanOptions.parse(Map.of());
        List<String> handed = new ArrayList<>();
        int lag = 0;
        int added = 0;
        try (GroupedFiles grouped = new GroupedFiles(options, g -> handed.addAll(g.files()))) {
            for (int i = 0; i < 50_000; i++) {
                grouped.add(new FileListing.Found(key(i) + "." + i, 8));
                added++;
                lag = Math.max(lag, added - handed.size());
            }
            for (int i = 49_000; i < 50_000; i++) {
                grouped.add(new FileListing.Found(key(i) + "." + i, 8)); // a second location listing them again
            }
            grouped.endListing();
        }
        assertEquals(50_000, handed.size(), "each once: the repeated ones were handed on lately");
        assertEquals(50_000, handed.stream().distinct().count());
        assertTrue(lag <= dev.safetensors.ListOptions.DEFAULT_MAX_HELD_BACK + 1024 + 1, "held back: " + lag);
    }
}
