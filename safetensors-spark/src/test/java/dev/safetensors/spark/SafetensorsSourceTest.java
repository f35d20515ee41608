package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.SafetensorsFile;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The data source on local files: both levels, modes, index expansion, pruning, filters, data and checksums. */
class SafetensorsSourceTest {
    private static final int FILES = 20;
    private static SparkSession spark;
    @TempDir
    static Path dir;
    private static Path models;
    private static Path broken;

    @BeforeAll
    static void start() throws IOException {
        spark = LocalSpark.start();
        models = Files.createDirectories(dir.resolve("models"));
        for (int i = 0; i < FILES; i++) {
            Fixtures.write(models.resolve(String.format("m%02d.safetensors", i)), i);
        }
        Files.writeString(models.resolve("README.md"), "not a checkpoint");
        Path nested = Files.createDirectories(models.resolve("nested"));
        Fixtures.write(nested.resolve("deep.safetensors"), 99);
        broken = Fixtures.writeBroken(dir.resolve("broken.safetensors"));
    }


    private static Dataset<Row> read(String... paths) {
        return spark.read().format("safetensors").load(paths);
    }

    @Test
    void groupByCountsOverAFolder() {
        List<Row> byDtype = read(models.toString()).groupBy("dtype").count().orderBy("dtype").collectAsList();
        assertEquals(List.of("BF16", "F32", "I64"), byDtype.stream().map(r -> r.getString(0)).toList());
        byDtype.forEach(r -> assertEquals(FILES, r.getLong(1), "tensors of " + r.getString(0)));
        assertEquals(FILES, read(models.toString()).select("path").distinct().count(), "the glob keeps README out");
    }

    @Test
    void tensorRowsCarryAbsoluteOffsetsAndShapes() throws IOException {
        Path file = models.resolve("m03.safetensors");
        Row r = read(file.toString()).where("tensor = 'embed.weight'").collectAsList().get(0);
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            long payload = f.header().payloadOffset();
            assertEquals(file.toString(), r.getAs("path"));
            assertEquals(Files.size(file), (long) r.getAs("file_size"));
            assertEquals(f.header().headerLength(), (long) r.getAs("header_length"));
            assertEquals("F32", r.getAs("dtype"));
            assertEquals(List.of(4L, 8L), r.getList(r.fieldIndex("shape")));
            assertEquals(32L, (long) r.getAs("element_count"));
            assertEquals(payload + f.header().tensor("embed.weight").orElseThrow().begin(), (long) r.getAs("begin"));
            assertEquals(payload + 128, (long) r.getAs("end"));
            assertNull(r.getAs("error_code"));
        }
    }

    @Test
    void recursiveLookupFindsNestedFiles() {
        long files = spark.read().format("safetensors").option("recursiveFileLookup", "true").load(models.toString())
                .select("path").distinct().count();
        assertEquals(FILES + 1, files);
    }

    @Test
    void permissiveGivesOneErrorRowPerFailingFile() {
        List<Row> rows = read(broken.toString(), dir.resolve("missing.safetensors").toString())
                .orderBy("path").collectAsList();
        assertEquals(2, rows.size());
        assertEquals(ErrorCode.HEADER_START.name(), rows.get(0).getAs("error_code"));
        assertNull(rows.get(0).getAs("tensor"));
        assertEquals(ErrorCode.NOT_FOUND.name(), rows.get(1).getAs("error_code"));
    }

    @Test
    void theOfficialPolicyAcceptsWhatTheStrictOneRefuses() {
        Row strict = read(broken.toString()).collectAsList().get(0);
        assertEquals(ErrorCode.HEADER_START.name(), strict.getAs("error_code"));
        List<Row> official = spark.read().format("safetensors").option("policy", "official").load(broken.toString())
                .collectAsList();
        assertEquals(1, official.size(), "a valid file without tensors is still one row");
        assertNull(official.get(0).getAs("error_code"));
        assertNull(official.get(0).getAs("tensor"));
    }

    @Test
    void dropMalformedDropsTheFailingFiles() {
        long rows = spark.read().format("safetensors").option("mode", "DROPMALFORMED")
                .load(broken.toString(), models.resolve("m00.safetensors").toString()).count();
        assertEquals(Fixtures.TENSORS_PER_FILE, rows);
    }

    @Test
    void failFastRaisesTheLibrarysCode() {
        Dataset<Row> df = spark.read().format("safetensors").option("mode", "FAILFAST")
                .load(models.resolve("m00.safetensors").toString(), broken.toString());
        Exception e = assertThrows(Exception.class, df::collectAsList);
        Throwable cause = e;
        while (cause != null && !(cause instanceof ErrorCoded)) {
            cause = cause.getCause();
        }
        assertNotNull(cause, "no coded cause in " + e);
        assertInstanceOf(InvalidHeaderException.class, cause);
        assertEquals(ErrorCode.HEADER_START, ((ErrorCoded) cause).code());
        assertTrue(e.getMessage().contains("HEADER_START"), e.getMessage());
    }

    @Test
    void optionValuesAreChecked() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> spark.read().format("safetensors").option("mode", "lenient").load(models.toString()).count());
        assertTrue(e.getMessage().contains("mode"), e.getMessage());
    }

    @Test
    void aPrefixOfABackendNotInstalledIsRefusedWithItsCode() {
        // this module's tests have no http backend: the prefix is refused before any request, never read by Hadoop
        java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
                () -> read("https://127.0.0.1:9/models/").collectAsList());
        assertTrue(e.getMessage().contains("[UNSUPPORTED_SCHEME]"), e.getMessage());
    }

    @Test
    void fileLevelSummarisesEachFile() {
        List<Row> rows = spark.read().format("safetensors").option("level", "file")
                .load(models.resolve("m07.safetensors").toString(), broken.toString()).orderBy("path").collectAsList();
        Row broke = rows.get(0);
        assertEquals(ErrorCode.HEADER_START.name(), broke.getAs("error_code"));
        Row ok = rows.get(1);
        assertEquals(3L, (long) ok.getAs("tensor_count"));
        assertEquals(32L + 8 + 1, (long) ok.getAs("parameters"));
        assertEquals(Map.of("F32", 1L, "BF16", 1L, "I64", 1L), ok.getJavaMap(ok.fieldIndex("dtype_counts")));
        assertEquals(Map.of("format", "pt", "seed", "7"), ok.getJavaMap(ok.fieldIndex("metadata")));
        assertEquals(1L, (long) ok.getAs("requests"), "a header that fits the prefix read costs one request");
        assertNull(ok.getAs("error_code"));
    }

    @Test
    void sqlThroughATemporaryView() {
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW checkpoints USING safetensors OPTIONS (path '" + models
                + "', level 'tensor')");
        List<Row> rows = spark.sql("SELECT count(*) FROM checkpoints WHERE dtype = 'F32'").collectAsList();
        assertEquals(FILES, rows.get(0).getLong(0));
    }

    @Test
    void sqlDirectlyOnAPathNeedsAFileFormatSoSparkRefusesIt() {
        // Spark resolves format.`path` only for V1 FileFormat classes, whose Scala signatures would tie this jar to
        // one Scala version; docs/spark.md gives the temporary view instead.
        org.apache.spark.sql.AnalysisException e = assertThrows(org.apache.spark.sql.AnalysisException.class,
                () -> spark.sql("SELECT count(*) FROM safetensors.`" + models + "`").collectAsList());
        assertTrue(e.getMessage().contains("UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY"), e.getMessage());
    }

    @Test
    void anIndexExpandsToItsShardsAndIsCrossChecked() throws IOException {
        Path sharded = Files.createDirectories(dir.resolve("sharded"));
        Fixtures.write(sharded.resolve("a.safetensors"), 1);
        Files.write(sharded.resolve("b.safetensors"), singleTensor());
        Files.writeString(sharded.resolve("model.safetensors.index.json"), "{\"metadata\":{\"total_size\":"
                + (128 + 16 + 8 + 4) + "},\"weight_map\":{\"embed.weight\":\"a.safetensors\",\"layer.bias\":"
                + "\"a.safetensors\",\"step\":\"a.safetensors\",\"other\":\"b.safetensors\"}}");
        Dataset<Row> df = spark.read().format("safetensors").option("expandIndex", "true").load(sharded.toString());
        List<Row> rows = df.orderBy("path", "tensor").collectAsList();
        assertEquals(4, rows.size(), "each tensor once, though the shards are also in the folder");
        rows.forEach(r -> assertNull(r.getAs("error_code")));

        Files.writeString(sharded.resolve("model.safetensors.index.json"), "{\"weight_map\":{\"embed.weight\":"
                + "\"a.safetensors\",\"other\":\"b.safetensors\"}}");
        List<Row> errors = spark.read().format("safetensors").option("expandIndex", "true").load(sharded.toString())
                .where("error_code IS NOT NULL").collectAsList();
        assertEquals(1, errors.size());
        assertEquals(ErrorCode.INVALID_INDEX.name(), errors.get(0).getAs("error_code"));
        assertTrue(((String) errors.get(0).getAs("path")).endsWith("model.safetensors.index.json"));
    }

    @Test
    void aBadShardOfAnIndexIsItsOwnRowAndTheIndexIsNotJudgedAgainstIt() throws IOException {
        Path sharded = Files.createDirectories(dir.resolve("badshard"));
        Fixtures.write(sharded.resolve("a.safetensors"), 1);
        Files.writeString(sharded.resolve("b.safetensors"), "this is not a safetensors file");
        Files.writeString(sharded.resolve("model.safetensors.index.json"), "{\"weight_map\":{\"embed.weight\":"
                + "\"a.safetensors\",\"layer.bias\":\"a.safetensors\",\"step\":\"a.safetensors\",\"other\":"
                + "\"b.safetensors\"}}");
        List<Row> errors = spark.read().format("safetensors").option("expandIndex", "true").load(sharded.toString())
                .where("error_code IS NOT NULL").collectAsList();
        assertEquals(1, errors.size(), "the shard's failure, not also an index row naming a header it never got: "
                + errors);
        assertEquals(ErrorCode.HEADER_TOO_LARGE.name(), errors.get(0).getAs("error_code"));
        assertTrue(((String) errors.get(0).getAs("path")).endsWith("b.safetensors"));
    }

    private static byte[] singleTensor() throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        dev.safetensors.core.SafetensorsWriter.create().tensor("other", new long[]{1}, new float[]{1f}).writeTo(out);
        return out.toByteArray();
    }

    @Test
    void dataAndChecksumColumnsEqualTheLibrarysReads() throws Exception {
        Path file = models.resolve("m05.safetensors");
        List<Row> rows = spark.read().format("safetensors").option("data", "binary").option("checksum", "sha256")
                .load(file.toString()).select("tensor", "data", "sha256", "chunk").collectAsList();
        List<Row> floats = spark.read().format("safetensors").option("data", "float32").load(file.toString())
                .select("tensor", "data").collectAsList();
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertEquals(3, rows.size());
            for (Row r : rows) {
                String name = r.getString(0);
                ByteBuffer expected = f.readBytes(name);
                byte[] bytes = new byte[expected.remaining()];
                expected.get(bytes);
                assertArrayEquals(bytes, (byte[]) r.get(1), name);
                assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)),
                        r.getString(2), name);
                assertEquals(0, r.getInt(3));
            }
            Map<String, List<Float>> widened = new HashMap<>();
            floats.forEach(r -> widened.put(r.getString(0), r.isNullAt(1) ? null : r.getList(1)));
            for (String name : List.of("embed.weight", "layer.bias")) {
                float[] expected = f.readFloat32(name);
                List<Float> got = widened.get(name);
                assertEquals(expected.length, got.size(), name);
                for (int i = 0; i < expected.length; i++) {
                    assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(got.get(i)), name);
                }
            }
            assertNull(widened.get("step"), "an I64 tensor has no float32 data");
        }
    }

    @Test
    void largeTensorsBecomeChunkRowsWithTheChecksumOnTheLast() throws Exception {
        Path file = models.resolve("m09.safetensors");
        List<Row> rows = spark.read().format("safetensors").option("data", "binary").option("checksum", "sha256")
                .option("maxTensorBytes", "48").load(file.toString()).where("tensor = 'embed.weight'")
                .orderBy("chunk").select("chunk", "data", "sha256").collectAsList();
        assertEquals(3, rows.size(), "128 bytes in chunks of at most 48");
        java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream();
        for (Row r : rows) {
            joined.write((byte[]) r.get(1));
        }
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            ByteBuffer expected = f.readBytes("embed.weight");
            byte[] bytes = new byte[expected.remaining()];
            expected.get(bytes);
            assertArrayEquals(bytes, joined.toByteArray());
            assertNull(rows.get(0).get(2));
            assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)),
                    rows.get(2).getString(2));
        }
        List<Row> floats = spark.read().format("safetensors").option("data", "float32").option("maxTensorBytes", "40")
                .load(file.toString()).where("tensor = 'embed.weight'").orderBy("chunk").select("data")
                .collectAsList();
        assertEquals(4, floats.size(), "32 floats in chunks of at most 10");
    }

    @Test
    void bytesAreFetchedOnlyForSelectedColumnsAndMatchingTensors() {
        String file = models.resolve("m02.safetensors").toString();
        Dataset<Row> noData = spark.read().format("safetensors").option("data", "binary").load(file)
                .select("tensor", "dtype");
        noData.collectAsList();
        assertEquals(1, LocalSpark.scanMetric(noData, RequestsMetric.NAME), "the header only");

        Dataset<Row> oneTensor = spark.read().format("safetensors").option("data", "binary").load(file)
                .where("tensor = 'step'").select("tensor", "data");
        assertEquals(1, oneTensor.collectAsList().size());
        assertEquals(2, LocalSpark.scanMetric(oneTensor, RequestsMetric.NAME), "the header and one tensor");
        assertEquals(1, LocalSpark.scanMetric(oneTensor, FilesMetric.NAME));
    }

    @Test
    void readHeadersTakesLocationsFromADataset() {
        Dataset<String> inventory = spark.createDataset(List.of(models.resolve("m01.safetensors").toString(),
                models.resolve("m02.safetensors").toString(), broken.toString()), Encoders.STRING());
        List<Row> rows = SafetensorsSpark.readHeaders(spark, inventory).collectAsList();
        assertEquals(2 * Fixtures.TENSORS_PER_FILE + 1, rows.size());
        assertEquals(1, rows.stream().filter(r -> r.getAs("error_code") != null).count());
        List<Row> files = SafetensorsSpark.readHeaders(spark, inventory, Map.of("level", "file"))
                .where("error_code IS NULL").collectAsList();
        assertEquals(2, files.size());
        assertEquals(Map.of("format", "pt", "seed", "1"), files.get(0).getJavaMap(files.get(0).fieldIndex("metadata")));
    }

    @Test
    void theSchemaIsThePublicConstant() {
        assertEquals(SafetensorsSchemas.TENSOR, read(models.toString()).schema());
        assertEquals(SafetensorsSchemas.FILE,
                spark.read().format("safetensors").option("level", "file").load(models.toString()).schema());
    }
}
