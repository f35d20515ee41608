package dev.safetensors.fuzz;

import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.fuzz.reference.Verdict;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The seed corpus of the whole-file targets: valid files of many shapes, then one file per rule of
 * {@code RULES.md} that breaks exactly that rule (several for the rules with several ways to break them). Each seed
 * states its verdict under one policy, which {@code SeedCorpusTest} checks against the validator and the reference.
 */
final class FileSeeds {
    private static final String U8_1 = "{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}";

    /**
     * @param name     the seed's file name
     * @param bytes    the whole file
     * @param policy   the policy the verdict is stated for
     * @param expected the verdict under that policy
     */
    record Seed(String name, byte[] bytes, PolicyPair policy, Verdict expected) {
    }

    private final List<Seed> seeds = new ArrayList<>();

    private FileSeeds() {
    }

    static List<Seed> all() {
        FileSeeds s = new FileSeeds();
        s.validShapes();
        s.prefixRules();
        s.encodingAndJsonRules();
        s.sizeRules();
        s.entryRules();
        s.layoutRules();
        s.officialPreset();
        return List.copyOf(s.seeds);
    }

    private void validShapes() {
        valid("empty", SafetensorsFixture.file("{}      ", 0));
        valid("scalar", SafetensorsFixture.create().tensor("s", "F32").build());
        valid("zero-dims", SafetensorsFixture.create().tensor("z", "F16", 0).tensor("y", "I32", 3, 0, 2)
                .tensor("w", "BF16", 2, 2).build());
        SafetensorsFixture every = SafetensorsFixture.create();
        for (String dtype : new String[] {"BOOL", "U8", "I8", "F16", "BF16", "I16", "U16", "F32", "I32", "U32", "F64",
            "I64", "U64"}) {
            every.tensor("t_" + dtype, dtype, 2, 3);
        }
        valid("every-strict-dtype", every.metadata("format", "pt").build());
        valid("metadata-only", SafetensorsFixture.create().metadata("k", "v").metadata("", "").build());
        valid("metadata-last", SafetensorsFixture.create().tensor("w", "F32", 2).metadata("a", "b").metadataLast()
                .build());
        valid("unicode-names", SafetensorsFixture.create().tensor("é", "U8", 1).tensor("日本", "U8", 2)
                .tensor("😀", "U8", 3).metadata("ключ", "значение").build());
        valid("escaped-names", file("{\"\\u0077\\n\\/\":" + U8_1 + ",\"__metadata__\":{\"\\ud83d\\ude00\":\"\\t\"}}",
                1));
        valid("shared-empty-offsets", SafetensorsFixture.create().tensor("a", "U8", 4).tensor("e1", "U8", 0)
                .tensor("e2", "F64", 0, 7).tensor("b", "U8", 4).build());
        long[] sixteen = new long[16];
        Arrays.fill(sixteen, 1);
        valid("rank-16", SafetensorsFixture.create().tensor("r", "U8", sixteen).build());
        valid("whitespace-padding", file("{ \"w\" :\t" + U8_1 + "\r\n}\t\n\r ", 1));
        valid("name-1024-bytes", SafetensorsFixture.create().tensor("é".repeat(512), "U8", 1).build());
        valid("escaped-name-1024-bytes", file("{\"" + "\\u00e9".repeat(512) + "\":" + U8_1 + "}", 1));
        valid("metadata-value-65536-bytes", SafetensorsFixture.create().metadata("k", "é".repeat(32_768)).build());
        valid("json-order-differs", SafetensorsFixture.create().tensor("c", "I8", new long[] {5}, 24, 29)
                .tensor("a", "F32", new long[] {4}, 0, 16).tensor("b", "BF16", new long[] {2, 2}, 16, 24).build());
        Random random = new Random(8);
        for (int n : new int[] {3, 12, 40}) {
            SafetensorsFixture f = SafetensorsFixture.create();
            for (int i = 0; i < n; i++) {
                long[] shape = new long[random.nextInt(4)];
                for (int k = 0; k < shape.length; k++) {
                    shape[k] = random.nextInt(4);
                }
                f.tensor("model.layers." + i + ".weight", i % 2 == 0 ? "F16" : "F32", shape);
            }
            valid("random-" + n + "-tensors", f.metadata("n", Integer.toString(n)).build());
        }
        add("unsupported-f8", SafetensorsFixture.create().tensor("w", "F8_E4M3", 4).build(), PolicyPair.DEFAULT,
                Verdict.UNSUPPORTED);
        add("undefined-dtype", file("{\"w\":{\"dtype\":\"F128\",\"shape\":[1],\"data_offsets\":[0,16]}}", 16),
                PolicyPair.DEFAULT, Verdict.UNSUPPORTED);
    }

    private void prefixRules() {
        invalid("rule01-short", new byte[] {2, 0, 0, 0, 0, 0, 0});
        invalid("rule02-unsigned-length", concat(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}, ascii("{}")));
        invalid("rule03-too-large", concat(SafetensorsFixture.prefix(8_388_609), ascii("{}")));
        invalid("rule04-exceeds-file", concat(SafetensorsFixture.prefix(3), ascii("{}")));
        invalid("rule05-leading-space", file(" {}", 0));
        invalid("rule05-array", file("[]", 0));
        invalid("rule06-lfs-pointer", ascii("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n"));
        invalid("rule06-html", ascii("<!DOCTYPE html><html><body>Not found</body></html>"));
    }

    private void encodingAndJsonRules() {
        invalid("rule07-overlong", header(bytes("{\"", 0xC0, 0xAF, "\":" + U8_1 + "}"), 1));
        invalid("rule07-encoded-surrogate", header(bytes("{\"", 0xED, 0xA0, 0x80, "\":" + U8_1 + "}"), 1));
        invalid("rule07-above-10ffff", header(bytes("{\"", 0xF4, 0x90, 0x80, 0x80, "\":" + U8_1 + "}"), 1));
        invalid("rule07-truncated", header(bytes("{}", 0xE2, 0x82), 0));
        invalid("rule08-comment", file("{/* c */}", 0));
        invalid("rule08-single-quotes", file("{'w':" + U8_1 + "}", 1));
        invalid("rule08-trailing-comma", file("{\"w\":" + U8_1 + ",}", 1));
        invalid("rule08-nan", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[NaN],\"data_offsets\":[0,1]}}", 1));
        invalid("rule08-leading-zero", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[01],\"data_offsets\":[0,1]}}", 1));
        invalid("rule08-plus", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[+1],\"data_offsets\":[0,1]}}", 1));
        invalid("rule08-control-character", file("{\"w\u0001\":" + U8_1 + "}", 1));
        invalid("rule08-invalid-escape", file("{\"w\\x\":" + U8_1 + "}", 1));
        invalid("rule08-lone-surrogate", file("{\"w\\ud800\":" + U8_1 + "}", 1));
        invalid("rule08-lone-low-surrogate", file("{\"__metadata__\":{\"k\":\"\\udc00\\ud800\"}}", 0));
        invalid("rule09-nul-padding", file("{}\0\0", 0));
        invalid("rule09-junk", file("{} x", 0));
        invalid("rule09-second-object", file("{}{}", 0));
        invalid("rule10-too-deep", file("{\"__metadata__\":{\"k\":[[[[[[[[\"v\"]]]]]]]]}}", 0));
        invalid("rule11-duplicate-tensor", file("{\"w\":" + U8_1 + ",\"\\u0077\":" + U8_1 + "}", 1));
        invalid("rule11-duplicate-field", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],"
                + "\"d\\u0074ype\":\"U8\"}}", 1));
        invalid("rule11-duplicate-metadata-key", file("{\"__metadata__\":{\"k\":\"a\",\"k\":\"b\"}}", 0));
        invalid("rule11-duplicate-metadata", file("{\"__metadata__\":{},\"__metadata\\u005f_\":{}}", 0));
    }

    private void sizeRules() {
        invalid("rule12-name-1025-bytes", SafetensorsFixture.create().tensor("é".repeat(512) + "a", "U8", 1).build());
        invalid("rule12-escaped-name-1025-bytes", file("{\"a" + "\\u00e9".repeat(512) + "\":" + U8_1 + "}", 1));
        invalid("rule12-metadata-key-1025-bytes", SafetensorsFixture.create().metadata("k".repeat(1025), "").build());
        invalid("rule13-metadata-value-65537-bytes", SafetensorsFixture.create().metadata("k", "é".repeat(32_768) + "v")
                .build());
        add("rule14-too-many-entries", SafetensorsFixture.create().tensor("a", "U8", 1).tensor("b", "U8", 1)
                .tensor("c", "U8", 1).tensor("d", "U8", 1).metadata("k", "v").build(), PolicyPair.TIGHT,
                Verdict.INVALID);
        add("rule14-too-many-metadata-keys", SafetensorsFixture.create().metadata("a", "").metadata("b", "")
                .metadata("c", "").metadata("d", "").build(), PolicyPair.TIGHT, Verdict.INVALID);
    }

    private void entryRules() {
        invalid("rule15-metadata-array", file("{\"__metadata__\":[]}", 0));
        invalid("rule15-metadata-number-value", file("{\"__metadata__\":{\"k\":1}}", 0));
        invalid("rule16-missing-field", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[1]}}", 1));
        invalid("rule16-extra-field", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":0}}",
                1));
        invalid("rule16-not-an-object", file("{\"w\":1}", 0));
        invalid("rule17-dtype-not-a-string", file("{\"w\":{\"dtype\":8,\"shape\":[1],\"data_offsets\":[0,1]}}", 1));
        add("rule17-case-sensitive", file("{\"w\":{\"dtype\":\"u8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1),
                PolicyPair.DEFAULT, Verdict.UNSUPPORTED);
        long[] seventeen = new long[17];
        Arrays.fill(seventeen, 1);
        invalid("rule18-rank-17", SafetensorsFixture.create().tensor("r", "U8", seventeen).build());
        invalid("rule18-three-offsets", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,1]}}", 1));
        for (String n : new String[] {"-0", "1.0", "1e3", "-1", "9223372036854775808"}) {
            invalid("rule18-number-" + n, file("{\"w\":{\"dtype\":\"U8\",\"shape\":[" + n + "],\"data_offsets\":[0,1]}}",
                    1));
        }
        invalid("rule19-begin-after-end", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[1,0]}}", 1));
        invalid("rule20-count-overflow-before-zero", file("{\"w\":{\"dtype\":\"U8\",\"shape\":[4611686018427387904,4,0],"
                + "\"data_offsets\":[0,0]}}", 0));
        invalid("rule20-bits-overflow", file("{\"w\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],"
                + "\"data_offsets\":[0,0]}}", 0));
        invalid("rule20-length-mismatch", SafetensorsFixture.create().tensor("w", "F32", new long[] {2}, 0, 7).build());
    }

    private void layoutRules() {
        invalid("rule21-gap", SafetensorsFixture.create().tensor("a", "U8", new long[] {1}, 0, 1)
                .tensor("b", "U8", new long[] {1}, 2, 3).build());
        invalid("rule21-overlap", SafetensorsFixture.create().tensor("a", "U8", new long[] {2}, 0, 2)
                .tensor("b", "U8", new long[] {2}, 1, 3).build());
        invalid("rule21-empty-inside", SafetensorsFixture.create().tensor("a", "U8", new long[] {4}, 0, 4)
                .tensor("e", "U8", new long[] {0}, 2, 2).build());
        invalid("rule21-trailing", SafetensorsFixture.create().tensor("a", "U8", 1).payloadLength(2).build());
        invalid("rule21-out-of-file", SafetensorsFixture.create().tensor("a", "U8", 4).payloadLength(3).build());
        invalid("rule21-no-tensors-payload", SafetensorsFixture.file("{}", 1));
        invalid("rule21-undefined-dtype-gap", SafetensorsFixture.create().tensor("a", "Q4_0", new long[] {4}, 0, 4)
                .tensor("b", "U8", new long[] {1}, 5, 6).build());
    }

    private void officialPreset() {
        add("official-leading-whitespace", file(" \n{}", 0), PolicyPair.OFFICIAL, Verdict.VALID);
        add("official-all-dtypes", SafetensorsFixture.create().tensor("a", "F4", new long[] {2}, 0, 1)
                .tensor("b", "F6_E2M3", new long[] {4}, 1, 4).tensor("c", "C64", new long[] {1}, 4, 12).build(),
                PolicyPair.OFFICIAL, Verdict.VALID);
        add("official-misaligned", SafetensorsFixture.create().tensor("a", "F4", new long[] {3}, 0, 2).build(),
                PolicyPair.OFFICIAL, Verdict.INVALID);
    }

    private void valid(String name, byte[] file) {
        add(name, file, PolicyPair.DEFAULT, Verdict.VALID);
    }

    private void invalid(String name, byte[] file) {
        add(name, file, PolicyPair.DEFAULT, Verdict.INVALID);
    }

    private void add(String name, byte[] file, PolicyPair policy, Verdict expected) {
        seeds.add(new Seed(name, file, policy, expected));
    }

    private static byte[] file(String headerJson, int payload) {
        return SafetensorsFixture.file(headerJson, payload);
    }

    private static byte[] header(byte[] header, int payload) {
        return SafetensorsFixture.file(header, SafetensorsFixture.payload(payload));
    }

    /** Text and raw byte values, concatenated: for headers that are deliberately not UTF-8. */
    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof String s) {
                out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            } else {
                out.write((Integer) p);
            }
        }
        return out.toByteArray();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
