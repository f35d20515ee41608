package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.SourceChangedException;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Downloading one file: validated first, in parallel parts, resumed after an interruption, verified, renamed. */
class FileDownloadTest {
    private static final int PART = ReadOptions.MIN_PART_SIZE_BYTES;
    private static final ReadOptions FOUR = ReadOptions.builder().parallelism(4).partSizeBytes(PART).build();
    private static final RemotePolicy POLICY = RemotePolicy.builder().time(new ManualTime()).build();
    private static final int ELEMENTS = 10 * PART / 4;
    private static final byte[] FILE = file();

    @TempDir
    Path dir;

    private static byte[] file() {
        byte[] payload = new byte[4 * ELEMENTS];
        new SplittableRandom(11).nextBytes(payload);
        return TensorFiles.withPayload(SafetensorsFixture.create().tensor("w", "F32", ELEMENTS), payload);
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** A source named like a checkpoint file, so its header is validated first. */
    private static RangedBytesSource source(byte[] bytes) {
        return new RangedBytesSource("ranged://store/model.safetensors", bytes, POLICY);
    }

    private FileDownload.Placement place(String sha) {
        Path target = dir.resolve("model.safetensors");
        return new FileDownload.Placement(target, dir.resolve("blob.incomplete"), Optional.ofNullable(sha));
    }

    @Test
    void anInterruptedDownloadResumesFromItsPartialFileAndVerifies() throws Exception {
        String sha = sha256(FILE);
        long cut = FILE.length / 2;
        RangedBytesSource first = source(FILE);
        // every attempt at the parts past the middle fails: the first run stops with what came before it
        first.script((position, length) -> new int[] {position + length > cut + PART ? 500 : 206, -1});
        StorageException e = assertThrows(StorageException.class, () -> FileDownload.builder(first,
                s -> place(sha)).readOptions(FOUR).headerChecked(true).build().run());
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        long held = Files.size(dir.resolve("blob.incomplete"));
        assertTrue(held > 0 && held < FILE.length, "a partial file of " + held + " bytes is kept");
        assertFalse(Files.exists(dir.resolve("model.safetensors")), "nothing under the final name");

        RangedBytesSource second = source(FILE);
        FileDownload.Result r = FileDownload.builder(second, s -> place(sha)).readOptions(FOUR)
                .headerChecked(true).build().run();
        assertEquals(held, r.resumedFrom());
        assertEquals(FILE.length - held, r.fetched());
        assertTrue(r.verified());
        assertEquals(Optional.of(sha), r.sha256());
        assertArrayEquals(FILE, Files.readAllBytes(dir.resolve("model.safetensors")));
        assertFalse(Files.exists(dir.resolve("blob.incomplete")));
        long fetchedBytes = second.statistics().bytesRead();
        assertEquals(FILE.length - held + 1, fetchedBytes, "the rest, and the one-byte size probe");
        assertTrue(second.attempts().stream().allMatch(a -> a[0] == 0 && a[1] == 1 || a[0] >= held),
                "no byte before the partial file's end is asked again");
    }

    @Test
    void aDigestMismatchDeletesThePartialFileAndIsSourceChanged() throws Exception {
        String wrong = sha256("something else".getBytes(StandardCharsets.UTF_8));
        SourceChangedException e = assertThrows(SourceChangedException.class, () -> FileDownload.builder(
                source(FILE), s -> place(wrong)).readOptions(FOUR).headerChecked(true).build().run());
        assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        assertFalse(Files.exists(dir.resolve("blob.incomplete")));
        assertFalse(Files.exists(dir.resolve("model.safetensors")));
    }

    @Test
    void anInvalidHeaderStopsTheDownloadBeforeThePayloadUnlessForced() throws Exception {
        byte[] bad = FILE.clone();
        bad[8] = '['; // the header is no longer a JSON object
        RangedBytesSource s = source(bad);
        FileDownload.Placer placer = x -> FileDownload.Placement.beside(dir.resolve("x.safetensors"));
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> FileDownload.builder(s, placer).limits(Limits.STRICT).build().run());
        assertEquals(1, s.statistics().requests(), "the header prefix only");
        assertFalse(Files.exists(dir.resolve("x.safetensors")));

        FileDownload.Result forced = FileDownload.builder(source(bad), placer)
                .force(true).readOptions(FOUR).build().run();
        assertArrayEquals(bad, Files.readAllBytes(forced.target()));
        assertEquals(ErrorCode.HEADER_START, e.code());
    }

    @Test
    void aFileAlreadyInPlaceIsNotFetchedAgainWhenItsRecordedVersionIsTheSourcesNow() throws Exception {
        Path target = dir.resolve("model.safetensors");
        FileDownload.builder(source(FILE), x -> FileDownload.Placement.beside(target)).headerChecked(true).build()
                .run();
        RangedBytesSource s = source(FILE);
        FileDownload.Result r = FileDownload.builder(s, x -> FileDownload.Placement.beside(target))
                .headerChecked(true).build().run();
        assertTrue(r.skipped());
        assertEquals(List.of(1L), s.attempts().stream().map(a -> a[1]).toList(), "one size probe");
    }

    /** The same size and header, other payload bytes: what a new commit of a repository looks like on the wire. */
    private static byte[] otherVersion() {
        byte[] payload = new byte[4 * ELEMENTS];
        new SplittableRandom(12).nextBytes(payload);
        return TensorFiles.withPayload(SafetensorsFixture.create().tensor("w", "F32", ELEMENTS), payload);
    }

    @Test
    void aPartialFileOfAnotherVersionIsDiscardedNeverSpliced() throws Exception {
        long cut = FILE.length / 2;
        RangedBytesSource first = new RangedBytesSource("ranged://store/model.safetensors", FILE, "\"v1\"", POLICY);
        first.script((position, length) -> new int[] {position + length > cut + PART ? 500 : 206, -1});
        Path target = dir.resolve("model.safetensors");
        assertThrows(StorageException.class, () -> FileDownload.builder(first,
                s -> FileDownload.Placement.beside(target)).readOptions(FOUR).headerChecked(true).build().run());
        assertTrue(Files.size(dir.resolve(".model.safetensors.incomplete")) > 0, "the interrupted run's bytes");

        byte[] changed = otherVersion();
        RangedBytesSource second = new RangedBytesSource("ranged://store/model.safetensors", changed, "\"v2\"", POLICY);
        FileDownload.Result r = FileDownload.builder(second, s -> FileDownload.Placement.beside(target))
                .readOptions(FOUR).headerChecked(true).build().run();
        assertEquals(0, r.resumedFrom(), "the partial file holds v1: started over");
        assertArrayEquals(changed, Files.readAllBytes(target), "the new version whole, not a splice");
        assertEquals(Optional.of(sha256(changed)), r.sha256());
        assertFalse(Files.exists(dir.resolve(".model.safetensors.incomplete")));
        assertFalse(Files.exists(dir.resolve(".model.safetensors.incomplete.version")));
    }

    @Test
    void aPartialFileWithNoRecordOfItsVersionIsNeverResumed() throws Exception {
        Path target = dir.resolve("model.safetensors");
        // what an older tool, or another program, leaves: bytes with nothing saying which version they are
        Files.write(dir.resolve(".model.safetensors.incomplete"), java.util.Arrays.copyOf(FILE, FILE.length / 2));
        byte[] changed = otherVersion();
        Path local = Files.write(dir.resolve("served.safetensors"), changed);
        try (FileSource s = FileSource.open(local)) {
            FileDownload.Result r = FileDownload.builder(s, x -> FileDownload.Placement.beside(target)).build().run();
            assertEquals(0, r.resumedFrom());
            assertEquals(Optional.of(sha256(changed)), r.sha256());
        }
        assertArrayEquals(changed, Files.readAllBytes(target));
    }

    @Test
    void aLinkWhereThePartialFileGoesIsRefusedAndWhatItPointsAtIsUntouched() throws Exception {
        Path victim = Files.writeString(dir.resolve("thesis.txt"), "years of work");
        Path target = dir.resolve("out/model.safetensors");
        Files.createDirectories(target.getParent());
        FileDownload.Placement place = FileDownload.Placement.beside(target);
        Files.createSymbolicLink(place.partial(), victim);
        StorageException e = assertThrows(StorageException.class, () -> FileDownload.builder(source(FILE),
                x -> place).headerChecked(true).build().run());
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertEquals("years of work", Files.readString(victim));
        assertFalse(Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS), "no link published");

    }

    @Test
    void aLinkAtTheTargetIsNotTheFileInPlaceAndIsReplacedNotWrittenThrough() throws Exception {
        byte[] same = new byte[FILE.length];
        Path victim = Files.write(dir.resolve("elsewhere.bin"), same);
        Path target = dir.resolve("model.safetensors");
        Files.createSymbolicLink(target, victim);
        FileDownload.Result r = FileDownload.builder(source(FILE), x -> FileDownload.Placement.beside(target))
                .headerChecked(true).build().run();
        assertFalse(r.skipped(), "a link of the right size is not the file");
        assertFalse(Files.isSymbolicLink(target));
        assertArrayEquals(FILE, Files.readAllBytes(target));
        assertArrayEquals(same, Files.readAllBytes(victim), "the link's target is untouched");
    }

    @Test
    void aFileInPlaceOfTheSameSizeIsKeptOnlyWhenItsDigestOrRecordedVersionSaysSo() throws Exception {
        Path target = dir.resolve("model.safetensors");
        byte[] old = otherVersion();
        String published = sha256(FILE);
        Files.write(target, old);
        // no published digest, no record: the same size proves nothing
        FileDownload.Result r = FileDownload.builder(source(FILE), x -> FileDownload.Placement.beside(target))
                .headerChecked(true).build().run();
        assertFalse(r.skipped());
        assertArrayEquals(FILE, Files.readAllBytes(target));

        // a published digest decides when the record does not match
        Files.write(target, old);
        RangedBytesSource changed = new RangedBytesSource("ranged://store/model.safetensors", FILE, "\"v9\"", POLICY);
        FileDownload.Result again = FileDownload.builder(changed, x -> withDigest(target, published))
                .headerChecked(true).build().run();
        assertFalse(again.skipped(), "the old bytes do not have the published SHA-256");
        assertTrue(again.verified());
        assertArrayEquals(FILE, Files.readAllBytes(target));

        RangedBytesSource third = new RangedBytesSource("ranged://store/model.safetensors", FILE, "\"v10\"", POLICY);
        FileDownload.Result kept = FileDownload.builder(third, x -> withDigest(target, published))
                .headerChecked(true).build().run();
        assertTrue(kept.skipped() && kept.verified(), "the right bytes, by their digest");
    }

    private FileDownload.Placement withDigest(Path target, String sha) {
        return new FileDownload.Placement(target, dir.resolve(".model.safetensors.incomplete"), Optional.of(sha));
    }

    @Test
    void anOutputThatCannotBeWrittenIsWriteFailed() throws Exception {
        // a file where the output folder must be: creating the folder fails
        Files.writeString(dir.resolve("taken"), "x");
        Path under = dir.resolve("taken/model.safetensors");
        StorageException folder = assertThrows(StorageException.class, () -> FileDownload.builder(source(FILE),
                x -> FileDownload.Placement.beside(under)).headerChecked(true).build().run());
        assertEquals(ErrorCode.WRITE_FAILED, folder.code());

        // a folder (not empty) where the file must go: the rename into place fails after every byte was written
        Path target = dir.resolve("model.safetensors");
        Files.createDirectories(target.resolve("inside"));
        StorageException rename = assertThrows(StorageException.class, () -> FileDownload.builder(source(FILE),
                x -> FileDownload.Placement.beside(target)).headerChecked(true).build().run());
        assertEquals(ErrorCode.WRITE_FAILED, rename.code());
    }

    @Test
    void aUrlWithAQueryIsHeaderCheckedByItsFileName() throws Exception {
        byte[] bad = FILE.clone();
        bad[8] = '[';
        RangedBytesSource s = new RangedBytesSource("https://host/model.safetensors?X-Amz-Signature=s", bad,
                "\"v1\"", POLICY);
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class, () -> FileDownload.builder(s,
                x -> FileDownload.Placement.beside(dir.resolve("model.safetensors"))).build().run());
        assertEquals(ErrorCode.HEADER_START, e.code());
    }
}
