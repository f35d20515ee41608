package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Small checkpoints written with the library's writer: three tensors of three dtypes each. */
final class Fixtures {
    static final int TENSORS_PER_FILE = 3;

    private Fixtures() {
    }

    /** A checkpoint whose bytes depend on {@code seed}: F32 "embed.weight" [4,8], BF16 "layer.bias" [8], I64 "step" []. */
    static SafetensorsWriter checkpoint(int seed) {
        float[] embed = new float[32];
        for (int i = 0; i < embed.length; i++) {
            embed[i] = seed + i / 8f;
        }
        ByteBuffer bias = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 8; i++) {
            bias.putShort((short) (Float.floatToIntBits(seed - i) >>> 16));
        }
        ByteBuffer step = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(seed);
        return SafetensorsWriter.create()
                .metadata("format", "pt").metadata("seed", Integer.toString(seed))
                .tensor("embed.weight", new long[]{4, 8}, embed)
                .tensor("layer.bias", DType.BF16, new long[]{8}, bias.array())
                .tensor("step", DType.I64, new long[]{}, step.array());
    }

    static byte[] bytes(int seed) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        checkpoint(seed).writeTo(out);
        return out.toByteArray();
    }

    static Path write(Path file, int seed) throws IOException {
        checkpoint(seed).writeTo(file);
        return file;
    }

    /**
     * A checkpoint of six F32 tensors ({@code layers.I.weight}, 400 to 420 bytes) sharded at 1,000 bytes, index and
     * shards as the library writes them: the rows the store writes read and write back.
     *
     * @param folder where to write it, created if needed
     * @return the folder
     */
    static Path shardedCheckpoint(Path folder) throws IOException {
        Files.createDirectories(folder);
        dev.safetensors.core.ShardedWriter w = dev.safetensors.core.ShardedWriter.create(1000)
                .metadata("format", "pt");
        for (int i = 0; i < 6; i++) {
            byte[] b = new byte[400 + 4 * i];
            for (int j = 0; j < b.length; j++) {
                b[j] = (byte) (i * 31 + j * 7);
            }
            w.tensor("layers." + i + ".weight", DType.F32, new long[]{b.length / 4}, b);
        }
        w.writeTo(folder);
        return folder;
    }

    /** A file whose first byte is not '{': HEADER_START under the strict policy. */
    static Path writeBroken(Path file) throws IOException {
        byte[] json = " {}".getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + json.length).order(ByteOrder.LITTLE_ENDIAN).putLong(json.length)
                .put(json);
        return Files.write(file, b.array());
    }
}
