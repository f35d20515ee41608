package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.Location;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's select and download services over a counting in-memory store and a local folder: a prefix keeps its
 * layout, globs select every file by name, headers are checked before any payload, names that would leave the output
 * are refused, and the requests each file reports add up, with the listing's, to what the store served.
 */
class DownloadServiceTest {
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";
    private static final String INDEX = "model.safetensors.index.json";

    @TempDir
    Path dir;

    private final Map<String, byte[]> files = new TreeMap<>();

    private static byte[] tensorFile(String name, int elements) {
        return SafetensorsFixture.create().tensor(name, "F32", elements).build();
    }

    /** A checkpoint and its companions under {@code mem://bkt/ckpt/}, and a file of another prefix. */
    private MemoryStore store() {
        files.put("ckpt/" + SHARD1, tensorFile("a", 6));
        files.put("ckpt/" + SHARD2, tensorFile("b", 5));
        files.put("ckpt/" + INDEX, ("{\"metadata\":{\"total_size\":44},\"weight_map\":{\"a\":\"" + SHARD1
                + "\",\"b\":\"" + SHARD2 + "\"}}").getBytes(StandardCharsets.UTF_8));
        files.put("ckpt/config.json", "{\"model_type\":\"t\"}".getBytes(StandardCharsets.UTF_8));
        files.put("ckpt/tokenizer.json", "{}".getBytes(StandardCharsets.UTF_8));
        files.put("ckpt/README.md", "# t".getBytes(StandardCharsets.UTF_8));
        files.put("ckpt/ema/model.safetensors", tensorFile("e", 3));
        files.put("other/x.safetensors", tensorFile("x", 1));
        MemoryStore store = new MemoryStore();
        files.forEach((k, v) -> store.put("mem://bkt/" + k, v));
        return store;
    }

    private static SafetensorsClient client(MemoryStore store) {
        return SafetensorsClient.builder().registry(SourceRegistry.builder().provider(store).build()).build();
    }

    /** The files under a folder, by relative path, the download's own dot-files (version records) left out. */
    private static Set<String> written(Path out) throws IOException {
        Set<String> names = new TreeSet<>();
        if (!Files.exists(out)) {
            return names;
        }
        try (Stream<Path> walk = Files.walk(out)) {
            walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("."))
                    .forEach(p -> names.add(out.relativize(p).toString().replace('\\', '/')));
        }
        return names;
    }

    private static DownloadRequest globs(List<String> include, List<String> exclude) {
        return DownloadRequest.builder().include(include.stream().map(NameGlob::compile).toList())
                .exclude(exclude.stream().map(NameGlob::compile).toList()).build();
    }

    @Test
    void aPrefixDownloadsItsCheckpointFilesAtEveryLevelWithTheLayoutBelowIt() throws Exception {
        MemoryStore store = store();
        Path out = dir.resolve("out");
        DownloadResult result = client(store).download(Location.parse("mem://bkt/ckpt/"), out,
                DownloadRequest.DEFAULT);
        assertEquals(Set.of(SHARD1, SHARD2, INDEX, "config.json", "ema/model.safetensors"), written(out),
                "the checkpoint's files, not the README, the tokenizer or another prefix");
        for (String f : written(out)) {
            assertArrayEquals(files.get("ckpt/" + f), Files.readAllBytes(out.resolve(f)), f);
        }
        assertEquals(5, result.files().size());
        assertTrue(result.files().stream().noneMatch(DownloadedFile::present));
    }

    @Test
    void includeAndExcludeGlobsSelectEveryFileOfAPrefixByName() throws Exception {
        Path out = dir.resolve("out");
        client(store()).download(Location.parse("mem://bkt/ckpt/"), out,
                globs(List.of("*.json", "*.md"), List.of("config.json")));
        assertEquals(Set.of(INDEX, "tokenizer.json", "README.md"), written(out));

        Path shards = dir.resolve("shards");
        client(store()).download(Location.parse("mem://bkt/ckpt/"), shards, globs(List.of(), List.of("*-00002-*")));
        assertEquals(Set.of(SHARD1, INDEX, "config.json", "ema/model.safetensors"), written(shards),
                "excludes alone narrow the checkpoint's files");
    }

    @Test
    void globsFilterTheFilesOfAnIndex() throws Exception {
        Path out = dir.resolve("out");
        DownloadResult r = client(store()).download(Location.parse("mem://bkt/ckpt/" + INDEX), out,
                globs(List.of(), List.of("*-00002-*")));
        assertEquals(Set.of(SHARD1, INDEX), written(out));
        assertEquals(2, r.files().size());
    }

    @Test
    void everyRequestIsCountedOnceEitherByItsFileOrByTheListing() throws Exception {
        MemoryStore store = store();
        long before = store.requests();
        DownloadResult r = client(store).download(Location.parse("mem://bkt/ckpt/"), dir.resolve("out"),
                DownloadRequest.DEFAULT);
        long served = store.requests() - before;
        assertEquals(served, r.cost().requests(), "the lines and the listing add up to what the store served");
        assertEquals(1, r.locatingCost().requests(), "one listing page");
        for (DownloadedFile f : r.files()) {
            long least = f.source().fileName().endsWith(Location.FILE_SUFFIX) ? 2 : 1;
            assertTrue(f.cost().requests() >= least, "a header check and a fetch for a .safetensors file: " + f);
        }

        // an index: its read counts where the checkpoint was found, once
        MemoryStore again = store();
        long start = again.requests();
        DownloadResult i = client(again).download(Location.parse("mem://bkt/ckpt/" + INDEX), dir.resolve("i"),
                DownloadRequest.DEFAULT);
        assertEquals(again.requests() - start, i.cost().requests());
        assertTrue(i.locatingCost().requests() >= 1, "the index read that found the shards");
    }

    @Test
    void anInvalidHeaderUnderAPrefixStopsTheDownloadBeforeAnyFileIsFetched() throws Exception {
        MemoryStore store = store();
        byte[] bad = tensorFile("b", 5);
        bad[8] = '[';
        store.put("mem://bkt/ckpt/" + SHARD2, bad);
        Path out = dir.resolve("out");
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> client(store).download(Location.parse("mem://bkt/ckpt/"), out, DownloadRequest.DEFAULT));
        assertEquals(ErrorCode.HEADER_START, e.code());
        assertFalse(Files.exists(out), "nothing written, not even the files before it");
        assertEquals(1, store.firstReads("mem://bkt/ckpt/" + SHARD1), "the good shard's header only");

        DownloadResult forced = client(store).download(Location.parse("mem://bkt/ckpt/"), out,
                DownloadRequest.builder().force(true).build());
        assertArrayEquals(bad, Files.readAllBytes(out.resolve(SHARD2)), "--force fetches it as it is");
        assertEquals(5, forced.files().size());
    }

    @Test
    void aListedNameThatWouldLeaveTheOutputIsRefusedBeforeAnythingIsFetched() throws Exception {
        MemoryStore store = store();
        store.put("mem://bkt/ckpt/sub/../../escape.json", "{}".getBytes(StandardCharsets.UTF_8));
        Path out = dir.resolve("out");
        InvalidLocationException e = assertThrows(InvalidLocationException.class, () -> client(store)
                .download(Location.parse("mem://bkt/ckpt/"), out, globs(List.of("*.json"), List.of())));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertFalse(Files.exists(out));
        assertFalse(Files.exists(dir.resolve("escape.json")));
    }

    @Test
    void twoListedObjectsOfOnePathAreRefusedBeforeAnythingIsFetched() throws Exception {
        MemoryStore store = store();
        // the same name, percent-encoded and not: two objects for the store, one path for the output
        store.put("mem://bkt/ckpt/to%6Benizer.json", "{}".getBytes(StandardCharsets.UTF_8));
        Path out = dir.resolve("out");
        InvalidLocationException e = assertThrows(InvalidLocationException.class, () -> client(store)
                .download(Location.parse("mem://bkt/ckpt/"), out, globs(List.of("*.json"), List.of())));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertTrue(e.getMessage().contains("same path"), e.getMessage());
        assertFalse(Files.exists(out));
    }

    @Test
    void aSelectionOfNothingIsNotFoundAndTooManyFilesAreRefused() throws Exception {
        SourceNotFoundException none = assertThrows(SourceNotFoundException.class, () -> client(store())
                .download(Location.parse("mem://bkt/ckpt/"), dir.resolve("a"), globs(List.of("*.bin"), List.of())));
        assertEquals(ErrorCode.NOT_FOUND, none.code());

        StorageException many = assertThrows(StorageException.class, () -> client(store())
                .download(Location.parse("mem://bkt/ckpt/"), dir.resolve("b"),
                        DownloadRequest.builder().maxFiles(2).build()));
        assertEquals(ErrorCode.INVALID_LISTING, many.code());
        assertFalse(Files.exists(dir.resolve("b")));
    }

    @Test
    void aLocalFolderDownloadsWithItsLayoutAndALocalIndexByItsFolder() throws Exception {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("nested"));
        Files.write(src.resolve("a.safetensors"), tensorFile("a", 2));
        Files.write(src.resolve("nested/b.safetensors"), tensorFile("b", 2));
        Files.writeString(src.resolve("notes.txt"), "not a checkpoint file");
        Path out = dir.resolve("out");
        SafetensorsClient.defaultClient().download(Location.of(src), out, DownloadRequest.DEFAULT);
        assertEquals(Set.of("a.safetensors", "nested/b.safetensors"), written(out));
        assertArrayEquals(Files.readAllBytes(src.resolve("nested/b.safetensors")),
                Files.readAllBytes(out.resolve("nested/b.safetensors")));

        Path one = dir.resolve("one");
        SafetensorsClient.defaultClient().download(Location.of(src.resolve("nested/b.safetensors")), one,
                DownloadRequest.DEFAULT);
        assertEquals(Set.of("b.safetensors"), written(one), "a file is named beside its folder");
    }

    @Test
    void aLinkToAFolderIsNotFollowedAndAFifoNamedLikeAShardIsRefusedBeforeAnythingIsFetched() throws Exception {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("checkpoint-1000"));
        Files.write(src.resolve("checkpoint-1000/model.safetensors"), tensorFile("a", 2));
        Files.createSymbolicLink(src.resolve("latest"), src.resolve("checkpoint-1000"));
        Path out = dir.resolve("out");
        SafetensorsClient.defaultClient().download(Location.of(src), out, DownloadRequest.DEFAULT);
        assertEquals(Set.of("checkpoint-1000/model.safetensors"), written(out), "the link is not followed");

        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("mkfifo", src.resolve("x.safetensors")
                .toString()).start().waitFor() == 0, "mkfifo");
        Path fifo = dir.resolve("fifo");
        StorageException e = assertThrows(StorageException.class, () -> SafetensorsClient.defaultClient()
                .download(Location.of(src), fifo, DownloadRequest.DEFAULT));
        assertEquals(ErrorCode.NOT_A_FILE, e.code());
        assertFalse(Files.exists(fifo), "nothing fetched");
    }

    @Test
    void selectKeepsTheNamesTheGlobsKeepAtOneLevelOrEveryLevelAndCountsItsPages() throws Exception {
        SafetensorsClient client = client(store());
        Selection shards = new Selection(List.of(NameGlob.compile("*.safetensors")),
                List.of(NameGlob.compile("*-00002-*")), false);
        Set<String> oneLevel = new TreeSet<>();
        try (PrefixSelection s = client.select(Location.parse("mem://bkt/ckpt/"), shards)) {
            while (s.hasNext()) {
                ListEntry e = s.next();
                oneLevel.add(e.location().text());
            }
            assertEquals(1, s.cost().requests());
        }
        assertEquals(Set.of("mem://bkt/ckpt/" + SHARD1), oneLevel);
        Set<String> every = new TreeSet<>();
        try (PrefixSelection s = client.select(Location.parse("mem://bkt/ckpt/"),
                new Selection(shards.include(), shards.exclude(), true))) {
            while (s.hasNext()) {
                every.add(s.next().location().text());
            }
        }
        assertEquals(Set.of("mem://bkt/ckpt/" + SHARD1, "mem://bkt/ckpt/ema/model.safetensors"), every);
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> new Selection(List.of(), List.of(), true));
        assertTrue(empty.getMessage().contains("include"));
    }

    @Test
    void aWriteFailureIsWriteFailed() throws Exception {
        Path taken = Files.writeString(dir.resolve("taken"), "a file where the folder must be");
        StorageException e = assertThrows(StorageException.class, () -> client(store())
                .download(Location.parse("mem://bkt/ckpt/"), taken, DownloadRequest.DEFAULT));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
    }
}
