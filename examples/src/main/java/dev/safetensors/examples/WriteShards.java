package dev.safetensors.examples;

import dev.safetensors.DType;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.Durability;
import dev.safetensors.core.ShardedWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes float32 values as BF16 and F16 shards with {@link ShardedWriter} (narrowed with round-to-nearest-even), into
 * a folder it creates, with the syncs grouped at the end; then writes a new version over it in place, which the
 * commit protocol replaces whole, and reads it back.
 *
 * <pre>java ... dev.safetensors.examples.WriteShards [folder]   (default: a temporary folder)</pre>
 */
public final class WriteShards {
    private WriteShards() {
    }

    /**
     * @param args optionally the output folder (created if missing)
     * @throws IOException if the files cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path folder = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("shards-");
        float[] weight = {0.1f, -0.2f, 0.3f, -0.4f, 0.5f, -0.6f};
        float[] bias = {1f / 3, 2f / 3};

        for (int version = 1; version <= 2; version++) {
            float scale = version;
            float[] w = weight.clone();
            for (int i = 0; i < w.length; i++) {
                w[i] *= scale;
            }
            // writeTo first finishes a commit a killed earlier write left half-renamed (reads refuse such a folder)
            List<Path> written = ShardedWriter.create(8)      // at most 8 tensor bytes per shard: two shards
                    .metadata("format", "pt")
                    .durability(Durability.AT_END)               // one round of syncs, before the first rename
                    .replaceExisting(true)                       // version 2 replaces version 1, whole or not at all
                    .tensor("linear.weight", DType.BF16, new long[] {2, 3}, w)
                    .tensor("linear.bias", DType.F16, new long[] {2}, bias)
                    .writeTo(folder);
            System.out.println("version " + version + ": wrote " + written.size() + " files to " + folder);
        }

        try (Checkpoint c = Checkpoint.open(folder.resolve("model.safetensors.index.json"))) {
            float[] back = c.readFloat32("linear.weight");
            System.out.println("linear.weight[0] = " + back[0] + " (0.2 rounded to BF16)");
            System.out.println("linear.bias[0] = " + c.readFloat32("linear.bias")[0] + " (1/3 rounded to F16)");
        }
    }
}
