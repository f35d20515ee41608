package dev.safetensors.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a folder listing must never lose or misreport (issue 23, item 7), and a Hadoop filesystem read through the
 * {@link HadoopSource} adapter.
 */
class ListingEdgesTest {
    @TempDir
    static Path dir;
    private static SparkSession spark;
    private static Path folder;

    @BeforeAll
    static void start() throws Exception {
        spark = LocalSpark.start();
        folder = Files.createDirectories(dir.resolve("audit"));
        Fixtures.write(folder.resolve("good.safetensors"), 1);
        Files.createSymbolicLink(folder.resolve("dangling.safetensors"), folder.resolve("missing-blob"));
        Files.createDirectories(folder.resolve("folder.safetensors"));
        Path fifo = folder.resolve("pipe.safetensors");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor(), "mkfifo");
        Path nested = Files.createDirectories(folder.resolve("nested"));
        Fixtures.write(nested.resolve("deep.safetensors"), 2);
        Files.createSymbolicLink(nested.resolve("loop"), folder);
    }

    private static Map<String, String> verdicts(Dataset<Row> df) {
        Map<String, String> m = new TreeMap<>();
        for (Row r : df.collectAsList()) {
            String path = r.getAs("path");
            String code = r.getAs("error_code");
            m.put(path.substring(path.lastIndexOf('/') + 1), code == null ? "valid" : code);
        }
        return m;
    }

    @Test
    void danglingLinksFifosAndFoldersNamedLikeFilesBecomeRows() {
        Map<String, String> got = verdicts(spark.read().format("safetensors").option("level", "file")
                .load(folder.toString()));
        assertEquals(Map.of("good.safetensors", "valid", "dangling.safetensors", "NOT_FOUND",
                "folder.safetensors", "NOT_A_FILE", "pipe.safetensors", "NOT_A_FILE"), got);
    }

    @Test
    void aRecursiveLookupStopsAtALinkLoopAndKeepsEveryRow() {
        Map<String, String> got = verdicts(spark.read().format("safetensors").option("level", "file")
                .option("recursiveFileLookup", "true").load(folder.toString()));
        assertEquals(Map.of("good.safetensors", "valid", "dangling.safetensors", "NOT_FOUND",
                "folder.safetensors", "NOT_A_FILE", "pipe.safetensors", "NOT_A_FILE", "deep.safetensors", "valid"),
                got);
    }

    @Test
    void aFolderThatSelectsNoFileFailsWithNotFoundNamingWhatWasSearched() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Path notes = Files.createDirectories(dir.resolve("notes-only"));
        Files.writeString(notes.resolve("README.md"), "no checkpoint here");
        for (Path p : List.of(empty, notes)) {
            java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
                    () -> spark.read().format("safetensors").load(p.toString()).collectAsList());
            assertEquals(dev.safetensors.ErrorCode.NOT_FOUND, dev.safetensors.ErrorCode.of(e.getCause()));
            assertTrue(e.getMessage().startsWith(p + ": selected no file (searched for *.safetensors and"
                    + " *.safetensors.index.json, one level;"), e.getMessage());
            assertTrue(e.getMessage().contains("allowEmpty") && e.getMessage().endsWith("[NOT_FOUND]"),
                    e.getMessage());
        }
        java.io.UncheckedIOException both = assertThrows(java.io.UncheckedIOException.class,
                () -> spark.read().format("safetensors").option("recursiveFileLookup", "true")
                        .load(empty.toString(), notes.toString()).collectAsList());
        assertTrue(both.getMessage().startsWith(empty + ", " + notes + ": selected no file (searched for"
                + " *.safetensors and *.safetensors.index.json, subfolders included)"), both.getMessage());
    }

    @Test
    void allowEmptyAcceptsAnEmptySelection() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("allowed-empty"));
        assertEquals(0, spark.read().format("safetensors").option("allowEmpty", "true").load(empty.toString())
                .count());
    }

    @Test
    void aFileNamedExplicitlyIsASelectionEvenWhenItIsMissing() {
        List<Row> rows = spark.read().format("safetensors").load(dir.resolve("no-such.safetensors").toString())
                .collectAsList();
        assertEquals(1, rows.size());
        assertEquals("NOT_FOUND", rows.get(0).getAs("error_code"));
    }

    @Test
    void aSubfolderOfModeZeroFailsTheScanOrIsSkippedAndCounted() throws IOException {
        Path root = Files.createDirectories(dir.resolve("with-locked"));
        Fixtures.write(root.resolve("a.safetensors"), 5);
        Path locked = Files.createDirectories(root.resolve("locked"));
        Fixtures.write(locked.resolve("hidden.safetensors"), 6);
        Files.setPosixFilePermissions(locked, java.nio.file.attribute.PosixFilePermissions.fromString("---------"));
        try {
            boolean refused;
            try {
                Files.newDirectoryStream(locked).close();
                refused = false;
            } catch (java.nio.file.AccessDeniedException e) {
                refused = true;
            }
            org.junit.jupiter.api.Assumptions.assumeTrue(refused, "SKIPPED: this user (root) may read a folder of"
                    + " mode 000; FileListingTest covers the refused folder's failure and count");
            java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
                    () -> spark.read().format("safetensors").option("recursiveFileLookup", "true")
                            .load(root.toString()).collectAsList());
            assertEquals(dev.safetensors.ErrorCode.ACCESS_DENIED, dev.safetensors.ErrorCode.of(e.getCause()));
            assertTrue(e.getMessage().contains("locked"), e.getMessage());
            Dataset<Row> df = spark.read().format("safetensors").option("level", "file")
                    .option("recursiveFileLookup", "true").option("allowUnreadable", "true").load(root.toString());
            assertEquals(1, df.collectAsList().size());
            assertEquals(1, LocalSpark.scanMetric(df, "unreadable"));
        } finally {
            Files.setPosixFilePermissions(locked, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void anEmptyPathIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> spark.read().format("safetensors").load("").collectAsList());
        assertTrue(e.getMessage().contains("empty"), e.getMessage());
    }

    @Test
    void aMalformedGlobNamesTheOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> spark.read().format("safetensors").option("pathGlobFilter", "[").load(folder.toString())
                        .collectAsList());
        assertTrue(e.getMessage().contains("pathGlobFilter"), e.getMessage());
    }

    @Test
    void aHadoopFilesystemIsListedAndReadThroughTheAdapter() throws IOException {
        spark.sparkContext().hadoopConfiguration().set("fs." + TestSchemeFileSystem.SCHEME + ".impl",
                TestSchemeFileSystem.class.getName());
        Path hadoopFolder = Files.createDirectories(dir.resolve("through-hadoop"));
        Fixtures.write(hadoopFolder.resolve("a.safetensors"), 3);
        Fixtures.write(hadoopFolder.resolve("b.safetensors"), 4);
        Fixtures.writeBroken(hadoopFolder.resolve("c.safetensors"));
        Files.writeString(hadoopFolder.resolve("notes.txt"), "not read");
        String uri = TestSchemeFileSystem.SCHEME + "://" + hadoopFolder.toUri().getPath();
        Dataset<Row> df = spark.read().format("safetensors").option("level", "file").load(uri);
        List<Row> rows = df.collectAsList();
        Map<String, String> got = verdicts(df);
        assertEquals(Map.of("a.safetensors", "valid", "b.safetensors", "valid", "c.safetensors", "HEADER_START"),
                got);
        assertTrue(rows.stream().allMatch(r -> ((String) r.getAs("path")).startsWith("testfs:")), rows.toString());
        List<Row> tensors = spark.read().format("safetensors").load(uri + "a.safetensors").collectAsList();
        assertEquals(Fixtures.TENSORS_PER_FILE, tensors.size());
    }
}
