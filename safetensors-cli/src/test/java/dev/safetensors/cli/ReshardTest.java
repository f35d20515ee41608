package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.arguments.ByteSize;

/** {@code reshard} in process, through {@code Main.run}: split, merge, verification, refusals. */
class ReshardTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final DType[] TYPES = {DType.F32, DType.BF16, DType.F16, DType.I64, DType.U8, DType.I32,
        DType.F64, DType.BOOL};

    @TempDir
    static Path generated;
    private static Path hundred;

    @TempDir
    Path dir;

    /** Writes a 100-tensor checkpoint of mixed dtypes and sizes, with random bytes. */
    @BeforeAll
    static void generate() throws IOException {
        Random random = new Random(100);
        SafetensorsWriter w = SafetensorsWriter.create().metadata("format", "pt");
        for (int i = 0; i < 100; i++) {
            DType t = TYPES[i % TYPES.length];
            long n = 1 + random.nextInt(600);
            byte[] bytes = new byte[(int) (n * t.byteSize())];
            random.nextBytes(bytes);
            if (t == DType.BOOL) {
                for (int j = 0; j < bytes.length; j++) {
                    bytes[j] &= 1;
                }
            }
            w.tensor("layers." + i + ".weight", t, new long[] {n}, bytes);
        }
        hundred = generated.resolve("hundred.safetensors");
        w.writeTo(hundred);
    }

    record Run(int exit, String out, String err) {
        List<JsonNode> json() {
            return out.lines().filter(l -> !l.isBlank()).map(l -> (JsonNode) JSON.readTree(l)).toList();
        }

        String describe() {
            return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void splitsTheSampleAndMergesItBackByteForByte() throws IOException {
        Path sample = Path.of(System.getProperty("safetensors.examples", "../examples/data"), "sample.safetensors");
        Path shards = dir.resolve("shards");
        Run split = run("reshard", sample.toString(), "--out", shards.toString(), "--max-shard-size", "40B");
        assertEquals(0, split.exit(), split.describe());
        assertEquals(Set.of("model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
                "model-00003-of-00003.safetensors", "model.safetensors.index.json"), Set.of(shards.toFile().list()));
        assertEquals(List.of("embed.weight"), names(shards.resolve("model-00001-of-00003.safetensors")),
                "a 48-byte tensor gets a shard of its own");
        Path index = shards.resolve("model.safetensors.index.json");
        Run validate = run("validate", "--json", index.toString());
        assertEquals(0, validate.exit(), validate.describe());
        assertEquals("{\"index\":\"pass\",\"shards\":\"pass\",\"consistency\":\"pass\"}",
                validate.json().get(3).get("checks").toString(), validate.describe());

        Path merged = dir.resolve("merged");
        Run merge = run("reshard", index.toString(), "--out", merged.toString(), "--single");
        assertEquals(0, merge.exit(), merge.describe());
        assertSameTensors(sample, merged.resolve("model.safetensors"));
        assertEquals(Safetensors.readHeader(sample).metadata(),
                Safetensors.readHeader(merged.resolve("model.safetensors")).metadata());
    }

    @Test
    void splitsAHundredTensorsAndMergesThemBackByteForByte() throws IOException {
        Path shards = dir.resolve("shards");
        Run split = run("reshard", "--json", hundred.toString(), "--out", shards.toString(), "--max-shard-size",
                "20KB");
        assertEquals(0, split.exit(), split.describe());
        List<JsonNode> lines = split.json();
        JsonNode summary = lines.get(lines.size() - 1);
        assertEquals("summary", summary.get("kind").asString(), split.describe());
        assertEquals("valid", summary.get("status").asString(), split.describe());
        assertEquals(100, summary.get("tensor_count").asInt());
        int shardCount = lines.size() - 2;
        assertTrue(shardCount > 3, split.describe());
        assertEquals("output_index", lines.get(lines.size() - 2).get("kind").asString());
        try (SafetensorsFile original = SafetensorsFile.open(hundred)) {
            for (JsonNode shard : lines.subList(0, shardCount)) {
                long bytes = 0;
                for (JsonNode t : shard.get("tensors")) {
                    assertTrue(t.get("verified").asBoolean());
                    assertEquals(sha256(original.readBytes(t.get("name").asString())), t.get("sha256").asString());
                    bytes += t.get("bytes").asLong();
                }
                assertTrue(bytes <= 20_000 || shard.get("tensors").size() == 1, shard.toString());
            }
        }
        Run validate = run("validate", shards.resolve("model.safetensors.index.json").toString());
        assertEquals(0, validate.exit(), validate.describe());

        Path merged = dir.resolve("merged");
        Run merge = run("reshard", shards.resolve("model.safetensors.index.json").toString(), "--out",
                merged.toString(), "--max-shard-size", "1GiB");
        assertEquals(0, merge.exit(), merge.describe());
        assertArrayEquals(Files.readAllBytes(hundred), Files.readAllBytes(merged.resolve("model.safetensors")),
                "split then merged in insertion order, the file is the original, byte for byte");
    }

    @Test
    void everyLayoutValidatesAndAlignsWhatItPromises() throws IOException {
        for (String align : List.of("dtype", "64")) {
            Path out = dir.resolve(align);
            Run r = run("reshard", hundred.toString(), "--out", out.toString(), "--single", "--align", align);
            assertEquals(0, r.exit(), r.describe());
            Path file = out.resolve("model.safetensors");
            assertEquals(0, run("validate", "--policy", "official", file.toString()).exit());
            SafetensorsHeader h = Safetensors.readHeader(file);
            for (TensorInfo t : h.tensors()) {
                assertEquals(0, (h.payloadOffset() + t.begin()) % t.dtype().byteSize(), t.name());
            }
            if (align.equals("64")) {
                assertEquals(0, h.payloadOffset() % 64);
            }
            assertSameTensors(hundred, file);
        }
    }

    @Test
    void existingFilesAreKeptUnlessForced() throws IOException {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path existing = Files.write(out.resolve("model.safetensors"), new byte[] {1, 2, 3});
        Run refused = run("reshard", hundred.toString(), "--out", out.toString());
        assertEquals(3, refused.exit(), refused.describe());
        assertTrue(refused.err().contains("[ALREADY_EXISTS]") && refused.err().contains("--force"), refused.describe());
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(existing));
        assertEquals(1, out.toFile().list().length, "no temporary file left");
        Run forced = run("reshard", hundred.toString(), "--out", out.toString(), "--force");
        assertEquals(0, forced.exit(), forced.describe());
        assertSameTensors(hundred, existing);
    }

    @Test
    void metadataIsSetOrReplacedWithinTheStrictBounds() throws IOException {
        Path out = dir.resolve("out");
        Run r = run("reshard", hundred.toString(), "--out", out.toString(), "--metadata", "format=safetensors",
                "--metadata", "note=a=b");
        assertEquals(0, r.exit(), r.describe());
        assertEquals(Map.of("format", "safetensors", "note", "a=b"),
                Safetensors.readHeader(out.resolve("model.safetensors")).metadata());

        Path none = dir.resolve("none");
        Run tooLong = run("reshard", hundred.toString(), "--out", none.toString(), "--metadata",
                "k=" + "v".repeat(65_537));
        assertEquals(2, tooLong.exit(), tooLong.describe());
        assertTrue(tooLong.err().contains("[STRING_TOO_LONG]"), tooLong.describe());
        Run noKey = run("reshard", hundred.toString(), "--out", none.toString(), "--metadata", "=v");
        assertEquals(2, noKey.exit(), noKey.describe());
        assertFalse(Files.exists(none), "nothing is created before the options are checked");
    }

    @Test
    void aShardSizeNeedsAUnit() {
        Run r = run("reshard", hundred.toString(), "--out", dir.resolve("x").toString(), "--max-shard-size", "5");
        assertEquals(2, r.exit(), r.describe());
        assertTrue(r.err().contains("not a size with a unit"), r.describe());
        assertEquals(5_000_000_000L, ByteSize.parse("5GB"));
        assertEquals(2L << 30, ByteSize.parse("2GiB"));
        assertEquals(1_500_000L, ByteSize.parse("1.5mb"));
        assertEquals(500L, ByteSize.parse("500 B"));
        Run align = run("reshard", hundred.toString(), "--out", dir.resolve("x").toString(), "--align", "48");
        assertEquals(2, align.exit(), align.describe());
        assertFalse(Files.exists(dir.resolve("x")));
    }

    @Test
    void anInvalidOrMissingSourceIsReportedWithItsCode() throws IOException {
        Path bad = Files.write(dir.resolve("bad.safetensors"), new byte[] {8, 0, 0, 0, 0, 0, 0, 0, '[', ']', ' ',
            ' ', ' ', ' ', ' ', ' '});
        Run invalid = run("reshard", "--json", bad.toString(), "--out", dir.resolve("o").toString());
        assertEquals(1, invalid.exit(), invalid.describe());
        assertEquals("HEADER_START", invalid.json().get(0).get("code").asString(), invalid.describe());
        Run missing = run("reshard", dir.resolve("missing.safetensors").toString(), "--out",
                dir.resolve("o").toString());
        assertEquals(3, missing.exit(), missing.describe());
        assertTrue(missing.err().contains("[NOT_FOUND]"), missing.describe());
        assertFalse(Files.exists(dir.resolve("o")));
    }

    static void assertSameTensors(Path expected, Path actual) throws IOException {
        try (SafetensorsFile a = SafetensorsFile.open(expected); SafetensorsFile b = SafetensorsFile.open(actual)) {
            assertEquals(a.header().tensors().size(), b.header().tensors().size());
            for (TensorInfo t : a.header().tensors()) {
                TensorInfo u = b.header().tensor(t.name()).orElseThrow();
                assertEquals(t.dtype(), u.dtype(), t.name());
                assertArrayEquals(t.shape(), u.shape(), t.name());
                assertEquals(a.readBytes(t.name()), b.readBytes(t.name()), t.name());
            }
        }
    }

    /** Every tensor of {@code expected} is in one of the {@code *.safetensors} files of {@code dir}, with its bytes. */
    static void assertSameTensorsAcross(Path expected, Path dir) throws IOException {
        int found = 0;
        try (SafetensorsFile a = SafetensorsFile.open(expected);
             var files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".safetensors")).sorted().toList()) {
                try (SafetensorsFile b = SafetensorsFile.open(p)) {
                    for (TensorInfo u : b.header().tensors()) {
                        assertEquals(a.readBytes(u.name()), b.readBytes(u.name()), u.name());
                        found++;
                    }
                }
            }
            assertEquals(a.header().tensors().size(), found);
        }
    }

    private static List<String> names(Path file) throws IOException {
        List<String> names = new ArrayList<>();
        for (TensorInfo t : Safetensors.readHeader(file).tensors()) {
            names.add(t.name());
        }
        return names;
    }

    static String sha256(ByteBuffer b) {
        try {
            java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-256");
            d.update(b);
            return java.util.HexFormat.of().formatHex(d.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
