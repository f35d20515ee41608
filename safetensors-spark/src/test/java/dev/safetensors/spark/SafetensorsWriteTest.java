package dev.safetensors.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.Float32Decoding;
import dev.safetensors.core.Float32Narrowing;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.ShardedWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** df.write.format("safetensors"): the three layouts, the save modes, and what a failed task or job leaves. */
class SafetensorsWriteTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SparkSession spark;
    @TempDir
    static Path dir;
    private static Path sharded;

    @BeforeAll
    static void start() throws IOException {
        spark = LocalSpark.start();
        sharded = Files.createDirectories(dir.resolve("sharded"));
        ShardedWriter w = ShardedWriter.create(3000).metadata("format", "pt");
        for (int i = 0; i < 6; i++) {
            float[] v = new float[200 + i];
            for (int j = 0; j < v.length; j++) {
                v[j] = (float) Math.sin(i * 1000 + j) * (j % 7 == 0 ? 1e-41f : 3.5f);
            }
            w.tensor("layers." + i + ".weight", DType.F32, new long[]{v.length}, bytes(v));
            w.tensor("layers." + i + ".bias", DType.BF16, new long[]{2, 8}, ramp(32, i));
        }
        w.tensor("step", DType.I64, new long[]{}, ramp(8, 42));
        assertTrue(w.writeTo(sharded).size() > 2, "the fixture has several shards");
    }

    private static byte[] bytes(float[] v) {
        ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : v) {
            b.putFloat(f);
        }
        return b.array();
    }

    private static byte[] ramp(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    private static Dataset<Row> tensorRows(String data, int maxTensorBytes) {
        return spark.read().format("safetensors").option("data", data)
                .option("maxTensorBytes", Integer.toString(maxTensorBytes)).load(sharded.toString())
                .select("tensor", "dtype", "shape", "chunk", "data");
    }

    /** Every tensor of {@code copy} has the name, dtype, shape and bytes of the fixture's. */
    private static void assertSameTensors(Path copy) throws IOException {
        try (Checkpoint a = Checkpoint.open(sharded.resolve("model.safetensors.index.json"));
             Checkpoint b = Checkpoint.open(copy)) {
            assertEquals(a.tensors().size(), b.tensors().size());
            for (TensorInfo t : a.tensors()) {
                TensorInfo u = b.tensor(t.name());
                assertEquals(t.dtype(), u.dtype(), t.name());
                assertArrayEquals(t.shape(), u.shape(), t.name());
                assertEquals(a.readBytes(t.name()), b.readBytes(t.name()), t.name());
            }
        }
    }

    private static List<String> names(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static ErrorCode codeOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ErrorCoded coded) {
                return coded.code();
            }
        }
        throw new AssertionError("no coded failure in", t);
    }

    @Test
    void aShardedCheckpointReadAndWrittenBackKeepsEveryTensorByteForByte() throws IOException {
        Path out = dir.resolve("roundtrip");
        tensorRows("binary", 256).write().format("safetensors").option("layout", "checkpoint")
                .option("maxShardSize", "2KB").option("metadata.format", "pt").save(out.toString());
        List<String> files = names(out);
        assertTrue(files.contains("model.safetensors.index.json"), files.toString());
        assertTrue(files.stream().allMatch(f -> f.matches("model-\\d{5}-of-\\d{5}\\.safetensors")
                || f.equals("model.safetensors.index.json")), "nothing but the checkpoint: " + files);
        assertSameTensors(out.resolve("model.safetensors.index.json"));
        try (SafetensorsFile f = SafetensorsFile.open(out.resolve(files.get(0)))) {
            assertEquals("pt", f.header().metadata().get("format"));
        }
    }

    @Test
    void float32RowsAreNarrowedBackToTheirDtypeExactly() throws IOException {
        Path out = dir.resolve("float32");
        tensorRows("float32", 1 << 20).where("dtype <> 'I64'").coalesce(1).write().format("safetensors")
                .option("layout", "checkpoint").save(out.toString());
        assertEquals(List.of("model.safetensors"), names(out));
        try (Checkpoint a = Checkpoint.open(sharded.resolve("model.safetensors.index.json"));
             SafetensorsFile b = SafetensorsFile.open(out.resolve("model.safetensors"))) {
            assertEquals(12, b.header().tensors().size());
            for (TensorInfo t : b.header().tensors()) {
                assertEquals(a.readBytes(t.name()), b.readBytes(t.name()), t.name());
            }
        }
    }

    @Test
    void aTensorNameWrittenTwiceFailsTheJob() {
        Path out = dir.resolve("twice");
        // refused by the task that sees both rows, or at job commit when two tasks each have one
        Dataset<Row> twice = tensorRows("binary", 1 << 20).where("tensor = 'step'");
        Exception e = assertThrows(Exception.class, () -> twice.union(twice).repartition(2).write()
                .format("safetensors").option("layout", "checkpoint").option("maxShardSize", "1B")
                .save(out.toString()));
        assertEquals(ErrorCode.DUPLICATE_KEY, codeOf(e));
        assertFalse(Files.exists(out), "the aborted job leaves nothing");
    }

    @Test
    void float32RowsTakeATargetDtype() throws IOException {
        Path out = dir.resolve("tobf16");
        StructType schema = new StructType().add("tensor", DataTypes.StringType)
                .add("shape", DataTypes.createArrayType(DataTypes.LongType))
                .add("data", DataTypes.createArrayType(DataTypes.FloatType));
        List<Row> rows = List.of(RowFactory.create("w", new long[]{3}, new float[]{1f, 1.00390625f, -2.5f}));
        spark.createDataFrame(rows, schema).write().format("safetensors").option("layout", "checkpoint")
                .option("dtype", "BF16").save(out.toString());
        try (SafetensorsFile f = SafetensorsFile.open(out.resolve("model.safetensors"))) {
            assertEquals(DType.BF16, f.header().tensor("w").orElseThrow().dtype());
            // 1.00390625 is halfway between two BF16 values: it rounds to the even one, 1.0
            assertArrayEquals(new float[]{1f, 1f, -2.5f}, f.readFloat32("w"));
        }
    }

    private static Dataset<Row> vectors(int rows, int width) {
        List<Row> list = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            float[] v = new float[width];
            for (int j = 0; j < width; j++) {
                v[j] = r + j / 10f;
            }
            list.add(RowFactory.create(v, (long) r));
        }
        StructType schema = new StructType().add("x", DataTypes.createArrayType(DataTypes.FloatType, false))
                .add("label", DataTypes.LongType);
        return spark.createDataFrame(list, schema);
    }

    @Test
    void samplesStackRowsIntoBatchesWithAManifest() throws IOException {
        Path out = dir.resolve("samples");
        vectors(10, 3).coalesce(1).write().format("safetensors").option("layout", "samples")
                .option("batchSize", "4").option("dtype.x", "F16").save(out.toString());
        assertEquals(List.of("manifest.json", "part-00000.safetensors", "part-00001.safetensors",
                "part-00002.safetensors"), names(out));
        JsonNode manifest = JSON.readTree(out.resolve("manifest.json").toFile());
        assertEquals(10, manifest.get("rows").asLong());
        assertEquals(2, manifest.get("files").get(2).get("rows").asLong());
        assertEquals("[2,3]", manifest.get("files").get(2).get("tensors").get("x").get("shape").toString());
        int row = 0;
        for (int file = 0; file < 3; file++) {
            try (SafetensorsFile f = SafetensorsFile.open(out.resolve("part-0000" + file + ".safetensors"))) {
                assertEquals(DType.F16, f.header().tensor("x").orElseThrow().dtype());
                float[] x = f.readFloat32("x");
                ByteBuffer labels = f.readBytes("label").order(ByteOrder.LITTLE_ENDIAN);
                for (int r = 0; r < x.length / 3; r++, row++) {
                    assertEquals(row, labels.getLong(r * 8));
                    for (int j = 0; j < 3; j++) {
                        float want = Float32Decoding.widen(DType.F16, Float32Narrowing.narrow(DType.F16,
                                new float[]{row + j / 10f}))[0];
                        assertEquals(want, x[r * 3 + j], "row " + row);
                    }
                }
            }
        }
        assertEquals(10, row);
    }

    @Test
    void aShortLastBatchIsDroppedOrPadded() throws IOException {
        Path drop = dir.resolve("drop");
        vectors(10, 2).coalesce(1).write().format("safetensors").option("layout", "samples")
                .option("batchSize", "4").option("shortBatch", "drop").save(drop.toString());
        assertEquals(8, JSON.readTree(drop.resolve("manifest.json").toFile()).get("rows").asLong());
        assertEquals(3, names(drop).size());
        Path pad = dir.resolve("pad");
        vectors(10, 2).coalesce(1).write().format("safetensors").option("layout", "samples")
                .option("batchSize", "4").option("shortBatch", "pad").save(pad.toString());
        JsonNode last = JSON.readTree(pad.resolve("manifest.json").toFile()).get("files").get(2);
        assertEquals(2, last.get("rows").asLong());
        try (SafetensorsFile f = SafetensorsFile.open(pad.resolve("part-00002.safetensors"))) {
            assertArrayEquals(new long[]{4, 2}, f.header().tensor("x").orElseThrow().shape());
            assertArrayEquals(new float[]{8f, 8.1f, 9f, 9.1f, 0f, 0f, 0f, 0f}, f.readFloat32("x"));
        }
    }

    @Test
    void aRaggedRowFailsTheJobNamingTheRowAndLeavesNothing() {
        Path out = dir.resolve("ragged");
        StructType schema = new StructType().add("x", DataTypes.createArrayType(DataTypes.DoubleType, false));
        List<Row> rows = List.of(RowFactory.create(new double[]{1, 2}), RowFactory.create(new double[]{3, 4}),
                RowFactory.create(new double[]{5}));
        Exception e = assertThrows(Exception.class, () -> spark.createDataFrame(rows, schema).coalesce(1).write()
                .format("safetensors").option("layout", "samples").save(out.toString()));
        assertEquals(ErrorCode.LENGTH_MISMATCH, codeOf(e));
        assertTrue(messages(e).contains("partition 0, row 2"), messages(e));
        assertFalse(Files.exists(out), "an aborted job leaves nothing");
    }

    private static String messages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append('\n');
        }
        return b.toString();
    }

    private static Dataset<Row> keyedRows(String... keys) {
        List<Row> list = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            list.add(RowFactory.create(keys[i], new double[]{i, i + 0.5}, new int[]{i, -i, 7}));
        }
        StructType schema = new StructType().add("id", DataTypes.StringType)
                .add("emb", DataTypes.createArrayType(DataTypes.DoubleType, false))
                .add("tok", DataTypes.createArrayType(DataTypes.IntegerType, false));
        return spark.createDataFrame(list, schema);
    }

    @Test
    void keyedRowsBecomeNamedTensorsInFilesThatRollOverWithAnIndex() throws IOException {
        Path out = dir.resolve("keyed");
        keyedRows("a", "b", "c", "d", "e").repartition(2).write().format("safetensors").option("layout", "keyed")
                .option("key", "id").option("dtype.emb", "F32").option("maxFileSize", "40B").save(out.toString());
        JsonNode index = JSON.readTree(out.resolve("index.json").toFile());
        assertEquals(5, index.get("keys").size());
        assertTrue(index.get("files").size() >= 3, "files roll over at 40 bytes: " + index);
        for (int i = 0; i < 5; i++) {
            String key = String.valueOf((char) ('a' + i));
            String file = index.get("keys").get(key).asText();
            try (SafetensorsFile f = SafetensorsFile.open(out.resolve(file))) {
                assertArrayEquals(new float[]{i, i + 0.5f}, f.readFloat32(key + ".emb"));
                ByteBuffer tok = f.readBytes(key + ".tok").order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(DType.I32, f.header().tensor(key + ".tok").orElseThrow().dtype());
                assertEquals(List.of(i, -i, 7), List.of(tok.getInt(0), tok.getInt(4), tok.getInt(8)));
            }
        }
    }

    @Test
    void aDuplicateKeyIsRefusedOrTheLastRowWins() throws IOException {
        Path refused = dir.resolve("dup-refused");
        Exception e = assertThrows(Exception.class, () -> keyedRows("a", "b", "a").repartition(2).write()
                .format("safetensors").option("layout", "keyed").option("key", "id").save(refused.toString()));
        assertEquals(ErrorCode.DUPLICATE_KEY, codeOf(e));
        assertFalse(Files.exists(refused));
        Path last = dir.resolve("dup-last");
        keyedRows("a", "b", "a").coalesce(1).write().format("safetensors").option("layout", "keyed")
                .option("key", "id").option("duplicates", "last").save(last.toString());
        JsonNode index = JSON.readTree(last.resolve("index.json").toFile());
        assertEquals(2, index.get("keys").size());
        try (SafetensorsFile f = SafetensorsFile.open(last.resolve(index.get("keys").get("a").asText()))) {
            ByteBuffer emb = f.readBytes("a.emb").order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(2.0, emb.getDouble(0), "the third row, the last with key a");
        }
    }

    @Test
    void saveModesErrorIfExistsIgnoreOverwriteAndAppend() throws IOException {
        Path out = dir.resolve("modes");
        vectors(3, 2).coalesce(1).write().format("safetensors").option("layout", "samples").save(out.toString());
        Exception exists = assertThrows(Exception.class, () -> vectors(3, 2).write().format("safetensors")
                .option("layout", "samples").save(out.toString()));
        assertEquals(ErrorCode.ALREADY_EXISTS, codeOf(exists));
        vectors(5, 2).write().format("safetensors").option("layout", "samples").mode("ignore").save(out.toString());
        assertEquals(3, JSON.readTree(out.resolve("manifest.json").toFile()).get("rows").asLong());
        Files.writeString(out.resolve("stale.txt"), "from before");
        vectors(5, 2).coalesce(1).write().format("safetensors").option("layout", "samples").mode("overwrite")
                .save(out.toString());
        assertEquals(List.of("manifest.json", "part-00000.safetensors"), names(out));
        assertEquals(5, JSON.readTree(out.resolve("manifest.json").toFile()).get("rows").asLong());
        IllegalArgumentException append = assertThrows(IllegalArgumentException.class, () -> vectors(1, 2).write()
                .format("safetensors").option("layout", "samples").mode("append").save(out.toString()));
        assertTrue(append.getMessage().contains("does not append"), append.getMessage());
    }

    @Test
    void aFailedFirstAttemptIsRetriedAndLeavesNoDuplicateOrPartialFile() throws IOException {
        Path out = dir.resolve("retried");
        // a tensor's chunks stay together and in order, as the writer needs them
        tensorRows("binary", 256).repartition(3, functions.col("tensor")).sortWithinPartitions("tensor", "chunk")
                .write().format("safetensors").option("layout", "checkpoint")
                .option("maxShardSize", "1KB").option("testFailFirstAttempt", "0,1,2").save(out.toString());
        assertSameTensors(out.resolve("model.safetensors.index.json"));
        assertTrue(names(out).stream().allMatch(f -> f.startsWith("model")), names(out).toString());
    }

    @Test
    void aJobThatFailsLeavesAnExistingOutputAsItWas() throws IOException {
        Path out = dir.resolve("kept");
        vectors(3, 2).coalesce(1).write().format("safetensors").option("layout", "samples").save(out.toString());
        List<String> before = names(out);
        StructType schema = new StructType().add("x", DataTypes.createArrayType(DataTypes.LongType, false));
        Dataset<Row> overflowing = spark.createDataFrame(List.of(RowFactory.create(new long[]{1, 300})), schema);
        Exception e = assertThrows(Exception.class, () -> overflowing.write().format("safetensors")
                .option("layout", "samples").option("dtype", "U8").mode("overwrite").save(out.toString()));
        assertEquals(ErrorCode.OVERFLOW, codeOf(e));
        assertEquals(before, names(out), "an aborted overwrite leaves the old output");
        assertNotNull(JSON.readTree(out.resolve("manifest.json").toFile()));
    }

    @Test
    void aSpeculativeDuplicateAndAFailedAttemptLeaveOnlyTheCommittedFiles() throws IOException {
        Path out = dir.resolve("speculated");
        StructType schema = new StructType().add("x", DataTypes.createArrayType(DataTypes.FloatType, false));
        WriteOptions options = WriteOptions.parse(Map.of("path", out.toString(), "layout", "samples",
                "batchSize", "2", WriteOptions.SAVE_MODE, "create"));
        SafetensorsBatchWrite job = new SafetensorsBatchWrite(options, schema);
        DataWriterFactory factory = job.createBatchWriterFactory(null);
        // partition 0: the first attempt is slow; a speculative copy of it finishes and wins the commit
        DataWriter<InternalRow> slow = factory.createWriter(0, 100);
        DataWriter<InternalRow> speculative = factory.createWriter(0, 101);
        slow.write(row(1f, 2f));
        speculative.write(row(1f, 2f));
        speculative.write(row(3f, 4f));
        WriterCommitMessage first = speculative.commit();
        // partition 1: attempt 0 fails half-way and is aborted, attempt 1 succeeds
        DataWriter<InternalRow> failed = factory.createWriter(1, 102);
        failed.write(row(5f, 6f));
        failed.write(row(7f, 8f));
        failed.abort();
        DataWriter<InternalRow> retry = factory.createWriter(1, 103);
        retry.write(row(5f, 6f));
        retry.write(row(7f, 8f));
        WriterCommitMessage second = retry.commit();
        job.commit(new WriterCommitMessage[]{first, second});
        assertEquals(List.of("manifest.json", "part-00000.safetensors", "part-00001.safetensors"), names(out));
        // the slow attempt, still running after the job committed, cannot write into the output any more
        java.nio.file.NoSuchFileException late = assertThrows(java.nio.file.NoSuchFileException.class,
                () -> slow.write(row(3f, 4f)));
        assertEquals(ErrorCode.NOT_FOUND, ErrorCode.of(late), "its folder went with the job's staging folder");
        slow.abort();
        assertEquals(List.of("manifest.json", "part-00000.safetensors", "part-00001.safetensors"), names(out));
        try (SafetensorsFile f = SafetensorsFile.open(out.resolve("part-00001.safetensors"))) {
            assertArrayEquals(new float[]{5f, 6f, 7f, 8f}, f.readFloat32("x"));
        }
    }

    @Test
    void anAbortedJobLeavesNoFolderItCreated() throws IOException {
        Path out = dir.resolve("aborted");
        StructType schema = new StructType().add("x", DataTypes.createArrayType(DataTypes.FloatType, false));
        WriteOptions options = WriteOptions.parse(Map.of("path", out.toString(), "layout", "samples",
                "batchSize", "1", WriteOptions.SAVE_MODE, "create"));
        SafetensorsBatchWrite job = new SafetensorsBatchWrite(options, schema);
        DataWriter<InternalRow> task = job.createBatchWriterFactory(null).createWriter(0, 7);
        task.write(row(1f));
        WriterCommitMessage committed = task.commit();
        job.abort(new WriterCommitMessage[]{committed});
        assertFalse(Files.exists(out));
    }

    private static InternalRow row(float... x) {
        return new GenericInternalRow(new Object[]{ArrayData.toArrayData(x)});
    }
}
