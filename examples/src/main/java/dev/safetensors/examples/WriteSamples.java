package dev.safetensors.examples;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsWriter;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.DefaultPrettyPrinter;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Regenerates the sample data in {@code examples/data}: {@code sample.safetensors} (F32, BF16, F16 and I64 tensors
 * with metadata) and the same tensors split into a two-shard checkpoint under {@code sharded/}, with the Hugging Face
 * {@code model.safetensors.index.json} that maps each tensor to its shard. The output is deterministic: running it
 * again gives the same bytes.
 *
 * <pre>java ... dev.safetensors.examples.WriteSamples [folder]   (default: examples/data)</pre>
 */
public final class WriteSamples {
    private WriteSamples() {
    }

    /** One sample tensor: name, dtype, shape and little-endian bytes. */
    private record Tensor(String name, DType dtype, long[] shape, byte[] bytes) {
    }

    /**
     * @param args optionally the output folder
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path folder = args.length > 0 ? Path.of(args[0]) : Path.of("examples", "data");
        Path sharded = Files.createDirectories(folder.resolve("sharded"));
        List<Tensor> tensors = tensors();

        write(folder.resolve("sample.safetensors"), tensors);
        List<List<Tensor>> shards = List.of(tensors.subList(0, 2), tensors.subList(2, tensors.size()));
        Map<String, String> weightMap = new TreeMap<>();
        long totalSize = 0;
        for (int i = 0; i < shards.size(); i++) {
            String shardName = String.format("model-%05d-of-%05d.safetensors", i + 1, shards.size());
            write(sharded.resolve(shardName), shards.get(i));
            for (Tensor t : shards.get(i)) {
                weightMap.put(t.name(), shardName);
                totalSize += t.bytes().length;  // total_size counts tensor bytes only, as Hugging Face's does
            }
        }
        writeIndex(sharded.resolve("model.safetensors.index.json"), totalSize, weightMap);
        System.out.println("wrote the samples to " + folder);
    }

    private static List<Tensor> tensors() {
        ByteBuffer embed = le(4 * 12);
        for (int i = 0; i < 12; i++) {
            embed.putFloat(i * 0.5f - 2.75f);
        }
        // BF16 and F16 values chosen to be exact in both formats, so the widened floats are the same numbers
        ByteBuffer attn = le(2 * 9);
        ByteBuffer norm = le(2 * 4);
        float[] small = {1f, -0.5f, 0.25f, 2f, -1.5f, 0.125f, 3f, -0.75f, 0.0625f};
        for (float f : small) {
            attn.putShort((short) (Float.floatToRawIntBits(f) >>> 16));
        }
        for (float f : new float[] {1f, 1f, 0.5f, -2f}) {
            norm.putShort(f16(f));
        }
        ByteBuffer positions = le(8 * 4);
        for (long p = 0; p < 4; p++) {
            positions.putLong(p);
        }
        return List.of(
                new Tensor("embed.weight", DType.F32, new long[] {4, 3}, embed.array()),
                new Tensor("layer0.attn.weight", DType.BF16, new long[] {3, 3}, attn.array()),
                new Tensor("layer0.norm.weight", DType.F16, new long[] {4}, norm.array()),
                new Tensor("position_ids", DType.I64, new long[] {1, 4}, positions.array()));
    }

    private static void write(Path file, List<Tensor> tensors) throws IOException {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("format", "pt");
        metadata.put("description", "safetensors-jvm sample checkpoint");
        SafetensorsWriter writer = SafetensorsWriter.create().metadata(metadata);
        for (Tensor t : tensors) {
            writer.tensor(t.name(), t.dtype(), t.shape(), t.bytes());
        }
        writer.writeTo(file);
    }

    private static void writeIndex(Path file, long totalSize, Map<String, String> weightMap) throws IOException {
        ObjectWriteContext pretty = new ObjectWriteContext.Base() {
            @Override
            public PrettyPrinter getPrettyPrinter() {
                return new DefaultPrettyPrinter();
            }

            @Override
            public boolean hasPrettyPrinter() {
                return true;
            }
        };
        try (OutputStream out = Files.newOutputStream(file);
             JsonGenerator g = new JsonFactory().createGenerator(pretty, out)) {
            g.writeStartObject();
            g.writeName("metadata");
            g.writeStartObject();
            g.writeNumberProperty("total_size", totalSize);
            g.writeEndObject();
            g.writeName("weight_map");
            g.writeStartObject();
            for (Map.Entry<String, String> e : weightMap.entrySet()) {
                g.writeStringProperty(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    private static ByteBuffer le(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The binary16 bits of a float that is a normal binary16 value exactly (enough for these samples). */
    private static short f16(float f) {
        int bits = Float.floatToRawIntBits(f);
        int exponent = (bits >>> 23 & 0xff) - 127 + 15;
        if ((bits & 0x1fff) != 0 || exponent <= 0 || exponent >= 31) {
            throw new IllegalArgumentException(f + " is not a normal binary16 value");
        }
        return (short) (bits >>> 16 & 0x8000 | exponent << 10 | bits >>> 13 & 0x3ff);
    }
}
