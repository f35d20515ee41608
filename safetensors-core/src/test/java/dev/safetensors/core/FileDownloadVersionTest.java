package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.SourceChangedException;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What a download records beside its partial file, and the version a caller pinned when it validated the header. */
class FileDownloadVersionTest {
    private static final RemotePolicy POLICY = RemotePolicy.builder().time(new ManualTime()).build();
    private static final byte[] FILE = TensorFiles.withPayload(SafetensorsFixture.create().tensor("w", "F32", 1024),
            new byte[4096]);

    @TempDir
    Path dir;

    private static RangedBytesSource source(byte[] bytes) {
        return new RangedBytesSource("ranged://store/model.safetensors", bytes, POLICY);
    }

    @Test
    void aLocalPartialFileResumesOnlyWhileTheFileIsTheOneItsRecordNames() throws Exception {
        Path local = Files.write(dir.resolve("served.safetensors"), FILE);
        Path target = dir.resolve("model.safetensors");
        FileDownload.Placement place = FileDownload.Placement.beside(target);
        try (FileSource s = FileSource.open(local)) {
            Files.write(place.partial(), java.util.Arrays.copyOf(FILE, 100));
            Files.writeString(place.partialRecord(), FileDownload.versionOf(s).orElseThrow());
            FileDownload.Result r = FileDownload.builder(s, x -> place).build().run();
            assertEquals(100, r.resumedFrom(), "the same file, size and modification time: continued");
        }
        assertArrayEquals(FILE, Files.readAllBytes(target));

        // the file rewritten in place, same size: the record names the file as it was, so nothing is continued
        String recorded;
        try (FileSource s = FileSource.open(local)) {
            recorded = FileDownload.versionOf(s).orElseThrow();
        }
        byte[] rewritten = FILE.clone();
        rewritten[rewritten.length - 1] = 7;
        Files.write(local, rewritten);
        Files.setLastModifiedTime(local, java.nio.file.attribute.FileTime.fromMillis(0));
        Files.write(place.partial(), java.util.Arrays.copyOf(FILE, 100));
        Files.writeString(place.partialRecord(), recorded);
        Files.delete(target);
        try (FileSource s = FileSource.open(local)) {
            assertEquals(0, FileDownload.builder(s, x -> place).build().run().resumedFrom());
        }
        assertArrayEquals(rewritten, Files.readAllBytes(target));
    }

    @Test
    void aSourceThatIsNotTheVersionValidatedIsSourceChangedBeforeAnyPayload() throws Exception {
        RangedBytesSource s = new RangedBytesSource("ranged://store/model.safetensors", FILE, "\"v2\"", POLICY);
        Path target = dir.resolve("model.safetensors");
        SourceChangedException e = assertThrows(SourceChangedException.class, () -> FileDownload.builder(s,
                x -> FileDownload.Placement.beside(target)).headerChecked(true)
                .expectedVersion("remote " + FILE.length + " bytes, version \"v1\"").build().run());
        assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        assertEquals(List.of(1L), s.attempts().stream().map(a -> a[1]).toList(), "the size probe only");
        assertFalse(Files.exists(dir.resolve(".model.safetensors.incomplete")));
    }

    @Test
    void aLinkWhereThePartialFilesRecordGoesIsRefusedAndWhatItPointsAtIsUntouched() throws Exception {
        Path victim = Files.writeString(dir.resolve("thesis.txt"), "years of work");
        FileDownload.Placement place = FileDownload.Placement.beside(dir.resolve("model.safetensors"));
        Files.createSymbolicLink(place.partialRecord(), victim);
        StorageException e = assertThrows(StorageException.class, () -> FileDownload.builder(source(FILE),
                x -> place).headerChecked(true).build().run());
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertEquals("years of work", Files.readString(victim));
        assertFalse(Files.exists(place.partial(), java.nio.file.LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aPartialFileWithASecondNameIsNotWrittenThroughEvenUnderTheRightRecord() throws Exception {
        Path victim = Files.write(dir.resolve("elsewhere.bin"), java.util.Arrays.copyOf(FILE, 100));
        FileDownload.Placement place = FileDownload.Placement.beside(dir.resolve("model.safetensors"));
        Files.createLink(place.partial(), victim);
        RangedBytesSource s = source(FILE);
        s.size();
        Files.writeString(place.partialRecord(), FileDownload.versionOf(s).orElseThrow());
        FileDownload.Result r = FileDownload.builder(s, x -> place).headerChecked(true).build().run();
        assertEquals(0, r.resumedFrom());
        assertArrayEquals(java.util.Arrays.copyOf(FILE, 100), Files.readAllBytes(victim), "the other name untouched");
        assertArrayEquals(FILE, Files.readAllBytes(place.target()));
    }

    @Test
    void aRecordLongerThanItsBoundIsNoRecord() throws Exception {
        FileDownload.Placement place = FileDownload.Placement.beside(dir.resolve("model.safetensors"));
        RangedBytesSource s = source(FILE);
        s.size();
        String version = FileDownload.versionOf(s).orElseThrow();
        Files.write(place.partial(), java.util.Arrays.copyOf(FILE, 100));
        Files.writeString(place.partialRecord(), version + " ".repeat(DownloadFiles.MAX_RECORD_BYTES));
        FileDownload.Result r = FileDownload.builder(s, x -> place).headerChecked(true).build().run();
        assertEquals(0, r.resumedFrom(), "an overlong record is no record");
        assertArrayEquals(FILE, Files.readAllBytes(place.target()));
    }
}
