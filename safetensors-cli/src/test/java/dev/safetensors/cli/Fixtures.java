package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/** Files for the tests, written with the core module's {@link SafetensorsFixture}. */
public final class Fixtures {
    private Fixtures() {
    }

    /** @return a small valid file: F32 [2, 3], BF16 [4], I64 [2], with metadata */
    public static SafetensorsFixture small() {
        return SafetensorsFixture.create().metadata("format", "pt")
                .tensor("weight", "F32", 2, 3).tensor("bias", "BF16", 4).tensor("step", "I64", 2);
    }

    /** Writes a file and returns its path. */
    public static Path write(Path dir, String name, byte[] content) {
        try {
            Path p = dir.resolve(name);
            Files.createDirectories(p.getParent());
            Files.write(p, content);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a text file and returns its path. */
    public static Path write(Path dir, String name, String content) {
        return write(dir, name, content.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes a file whose payload is a hole: the size a header declares without the disk space.
     *
     * @param file    where
     * @param json    the header JSON
     * @param payload the payload length
     * @return the path
     */
    static Path sparse(Path file, String json, long payload) {
        byte[] text = json.getBytes(StandardCharsets.UTF_8);
        byte[] header = Arrays.copyOf(text, text.length + (8 - text.length % 8) % 8);
        Arrays.fill(header, text.length, header.length, (byte) ' ');
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.write(SafetensorsFixture.prefix(header.length));
            f.write(header);
            f.setLength(8L + header.length + payload);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param weightMap tensor name to shard file name
     * @param totalSize the declared total size, or -1 for none
     * @return the index JSON
     */
    static String index(Map<String, String> weightMap, long totalSize) {
        StringBuilder sb = new StringBuilder("{");
        if (totalSize >= 0) {
            sb.append("\"metadata\": {\"total_size\": ").append(totalSize).append("}, ");
        }
        sb.append("\"weight_map\": {");
        boolean first = true;
        for (Map.Entry<String, String> e : weightMap.entrySet()) {
            sb.append(first ? "" : ", ").append(SafetensorsFixture.quote(e.getKey())).append(": ")
                    .append(SafetensorsFixture.quote(e.getValue()));
            first = false;
        }
        return sb.append("}}").toString();
    }

    /**
     * Writes a consistent two-shard checkpoint: {@code a.weight}, {@code a.bias} in shard 1 and {@code b.weight} in
     * shard 2, 48 + 16 + 8 = 72 tensor bytes.
     *
     * @param dir where
     * @return the index path
     */
    public static Path twoShards(Path dir) {
        write(dir, "model-00001-of-00002.safetensors", SafetensorsFixture.create()
                .tensor("a.weight", "F32", 3, 4).tensor("a.bias", "F32", 4).build());
        write(dir, "model-00002-of-00002.safetensors", SafetensorsFixture.create()
                .tensor("b.weight", "F16", 4).build());
        return write(dir, "model.safetensors.index.json", index(twoShardMap(), 72));
    }

    /** @return the weight map of {@link #twoShards} */
    static Map<String, String> twoShardMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("a.weight", "model-00001-of-00002.safetensors");
        m.put("a.bias", "model-00001-of-00002.safetensors");
        m.put("b.weight", "model-00002-of-00002.safetensors");
        return m;
    }

    /** @return the SHA-256 of the bytes, lower-case hex */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** @return the SHA-256 of a file, lower-case hex */
    public static String sha256(Path file) {
        try {
            return sha256(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
