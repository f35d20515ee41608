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
        return new RangedBytesSource("ranged://model.safetensors", bytes, POLICY);
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
    void aFileAlreadyInPlaceIsNotFetchedAgain() throws Exception {
        Files.write(dir.resolve("model.safetensors"), FILE);
        RangedBytesSource s = source(FILE);
        FileDownload.Result r = FileDownload.builder(s, x -> place(null)).headerChecked(true).build().run();
        assertTrue(r.skipped());
        assertEquals(List.of(1L), s.attempts().stream().map(a -> a[1]).toList(), "one size probe");
    }
}
