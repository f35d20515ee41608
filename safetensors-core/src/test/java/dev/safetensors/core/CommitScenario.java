package dev.safetensors.core;

import dev.safetensors.DType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The checkpoints {@link CommitKillTest} replaces: an old and a new version of tensors {@code a}, {@code b}, {@code c}
 * (400, 100, 300 bytes) with different bytes, laid out as the scenario says. Shared by the test and the child JVM
 * ({@link CommitChild}), which must write the same bytes.
 */
enum CommitScenario {
    /** {a,b},{c} replaced in place by {a},{b,c}: the same two file names, different contents (issue 23's case). */
    IN_PLACE(500, 450),
    /** One model.safetensors replaced by three shards and an index; the single file is deleted. */
    SINGLE_TO_SHARDED(Long.MAX_VALUE, 250),
    /** Three shards and an index replaced by one model.safetensors; the shards and index are deleted. */
    SHARDED_TO_SINGLE(250, Long.MAX_VALUE);

    private final long oldMax;
    private final long newMax;

    CommitScenario(long oldMax, long newMax) {
        this.oldMax = oldMax;
        this.newMax = newMax;
    }

    /** @return the tensors of one version, by name */
    static Map<String, byte[]> tensors(boolean newVersion) {
        Map<String, byte[]> t = new LinkedHashMap<>();
        int[] sizes = {400, 100, 300};
        for (int i = 0; i < 3; i++) {
            byte[] b = new byte[sizes[i]];
            for (int j = 0; j < b.length; j++) {
                b[j] = (byte) (j * 31 + i * 7 + (newVersion ? 101 : 3));
            }
            t.put(String.valueOf((char) ('a' + i)), b);
        }
        return t;
    }

    /** @return a writer of one version, replacing what is there */
    ShardedWriter writer(boolean newVersion) {
        ShardedWriter w = ShardedWriter.create(newVersion ? newMax : oldMax).replaceExisting(true);
        tensors(newVersion).forEach((name, bytes) -> w.tensor(name, DType.U8, new long[] {bytes.length}, bytes));
        return w;
    }

    /** @return the tensors the checkpoint in {@code dir} holds, read as a loader reads it (the index when present) */
    static Map<String, byte[]> load(Path dir) throws IOException {
        Path index = dir.resolve("model.safetensors.index.json");
        Map<String, byte[]> loaded = new LinkedHashMap<>();
        try (Checkpoint c = Checkpoint.open(Files.exists(index) ? index : dir.resolve("model.safetensors"))) {
            for (dev.safetensors.TensorInfo t : c.tensors()) {
                ByteBuffer b = c.readBytes(t.name());
                byte[] a = new byte[b.remaining()];
                b.get(a);
                loaded.put(t.name(), a);
            }
        }
        return loaded;
    }
}
