package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.ShardIndex;
import dev.safetensors.core.ShardedWriter;
import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code reshard --force} into an S3 prefix that holds another checkpoint, killed with SIGKILL right after each
 * object it makes visible or deletes (the store tells the test before it answers, and the test kills the child
 * there): whatever index is then visible names shards of its own generation only, each holding exactly the tensors
 * it maps to it, and a final run leaves the new layout alone. A child JVM, since a kill is what is under test.
 */
@Tag("slow")
class StoreKillTest {
    private static final String BUCKET = "killed";
    private static final int TENSORS = 6;

    @TempDir
    Path dir;

    /**
     * @param oldShards the old checkpoint's --max-shard-size: 200B gives 3 shards (names the new layout does not
     *                  use: 2 shards and the index put, the 3 old shards deleted), 300B gives 2 (the new layout's
     *                  names: the old index deleted first, then 2 shards and the index put)
     * @param expected  the mutations of a whole forced run
     */
    @ParameterizedTest
    @CsvSource({"200B, 6", "300B, 4"})
    void aForcedReshardKilledAfterAnyMutationNeverShowsAnIndexOfMixedGenerations(String oldShards, int expected)
            throws Exception {
        Path old = source("A", 1000);
        Path next = source("B", 1000);
        try (LoopbackS3 s3 = LoopbackS3.inMemory()) {
            s3.put(BUCKET, "placeholder", new byte[0]);
            int mutations = -1;
            for (int stop = 1; mutations < 0 || stop <= mutations; stop++) {
                String prefix = "m" + stop + "/";
                assertEquals(0, reshard(s3, old, prefix, oldShards, false, -1), "the old checkpoint is written");
                int before = s3.mutations(BUCKET).size();
                int exit = reshard(s3, next, prefix, "300B", true, stop);
                String visible = visibleGeneration(s3, prefix);
                if (exit == 0) {
                    // the run ended before its stop: every mutation of a whole run, counted once
                    mutations = s3.mutations(BUCKET).size() - before;
                    assertEquals("B", visible);
                    break;
                }
                assertTrue(visible.equals("A") || visible.equals("B") || visible.isEmpty(),
                        "stop " + stop + ": " + visible);
                assertEquals(0, reshard(s3, next, prefix, "300B", true, -1), "a rerun finishes");
                assertEquals("B", visibleGeneration(s3, prefix), "stop " + stop);
                assertEquals(new TreeSet<>(List.of("model-00001-of-00002.safetensors",
                        "model-00002-of-00002.safetensors", "model.safetensors.index.json")), keys(s3, prefix),
                        "stop " + stop + ": the new layout alone");
            }
            assertEquals(expected, mutations, "a kill was tried after each of the run's mutations");
        }
    }

    /** A local checkpoint of one generation: shards of {@code maxShardBytes}, the generation in every header. */
    private Path source(String generation, long maxShardBytes) throws Exception {
        ShardedWriter w = ShardedWriter.create(maxShardBytes).metadata("generation", generation);
        for (int i = 0; i < TENSORS; i++) {
            byte[] bytes = new byte[100];
            java.util.Arrays.fill(bytes, (byte) (generation.charAt(0) + i));
            w.tensor("t" + i, DType.U8, new long[] {100}, bytes);
        }
        List<Path> files = w.writeTo(dir.resolve(generation));
        return files.get(files.size() - 1);
    }

    /**
     * Runs {@code reshard SOURCE --out s3://BUCKET/PREFIX --max-shard-size SIZE} in a child JVM, killed with SIGKILL
     * when the store records its {@code stop}-th mutation under the prefix (never, for -1).
     *
     * @return the exit status, 137 for a kill
     */
    private int reshard(LoopbackS3 s3, Path source, String prefix, String maxShard, boolean force, int stop)
            throws Exception {
        List<String> command = new ArrayList<>(ChildJvm.command(ChildJvm.SHORT_LIVED_FLAGS.toArray(String[]::new)));
        command.addAll(List.of("-cp", ChildJvm.testClassPath(), Main.class.getName(), "reshard", source.toString(),
                "--out", "s3://" + BUCKET + "/" + prefix, "--max-shard-size", maxShard, "--s3-endpoint",
                s3.endpoint().toString(), "--s3-path-style"));
        if (force) {
            command.add("--force");
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("child.log").toFile());
        builder.environment().putAll(Map.of("AWS_ACCESS_KEY_ID", LoopbackS3.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY",
                LoopbackS3.SECRET_KEY, "AWS_REGION", "us-east-1", "AWS_EC2_METADATA_DISABLED", "true"));
        AtomicReference<Process> child = new AtomicReference<>();
        AtomicInteger seen = new AtomicInteger();
        s3.onMutation(m -> {
            if (m.startsWith("put " + BUCKET + "/" + prefix) || m.startsWith("complete " + BUCKET + "/" + prefix)
                    || m.startsWith("delete " + BUCKET + "/" + prefix)) {
                Process p = child.get();
                if (seen.incrementAndGet() == stop && p != null) {
                    p.destroyForcibly();
                    try {
                        p.waitFor(1, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
        Process p = builder.start();
        child.set(p);
        try {
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the child ends");
            return p.exitValue();
        } finally {
            p.destroyForcibly();
            s3.onMutation(m -> { });
        }
    }

    /**
     * @return the generation a loader of the prefix sees: the index's (every shard it names present, of one
     *         generation, holding exactly the tensors it maps to it), else "" when there is no index
     */
    private static String visibleGeneration(LoopbackS3 s3, String prefix) throws Exception {
        byte[] index = s3.get(BUCKET, prefix + "model.safetensors.index.json");
        if (index == null) {
            return "";
        }
        ShardIndex parsed = ShardIndex.parse("index", index);
        Set<String> generations = new HashSet<>();
        for (String shard : parsed.shards()) {
            byte[] bytes = s3.get(BUCKET, prefix + shard);
            assertNotNull(bytes, "the index names " + shard + ", which is missing");
            SafetensorsHeader header = Safetensors.readHeader(shard, bytes, Limits.STRICT);
            Set<String> names = new HashSet<>();
            header.tensors().forEach(t -> names.add(t.name()));
            Set<String> mapped = new HashSet<>();
            parsed.weightMap().forEach((t, f) -> {
                if (f.equals(shard)) {
                    mapped.add(t);
                }
            });
            assertEquals(mapped, names, shard + " holds what the index maps to it");
            generations.add(header.metadata().get("generation"));
        }
        assertEquals(1, generations.size(), "the index names shards of " + generations);
        return generations.iterator().next();
    }

    private static Set<String> keys(LoopbackS3 s3, String prefix) {
        Set<String> keys = new TreeSet<>();
        s3.keys(BUCKET, prefix).forEach(k -> keys.add(k.substring(prefix.length())));
        return keys;
    }
}
