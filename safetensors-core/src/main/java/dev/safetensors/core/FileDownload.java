package dev.safetensors.core;

import dev.safetensors.Sha256;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;
import dev.safetensors.core.internal.read.FetchRanges;
import dev.safetensors.core.internal.read.OrderedFetch;
import dev.safetensors.core.internal.read.RangeStreamer;

/**
 * Downloads one file from any {@link RandomAccessSource} to a local path, never leaving anything partial under the
 * final name:
 * <ol>
 *   <li>a {@code .safetensors} file's header (decided by the {@linkplain Location#fileName() file name} of the
 *       source, so a URL's query does not hide it) is read and validated first (one request, which also pins the
 *       object's version); an invalid header ends the download before any payload byte is fetched, unless
 *       {@link Builder#force(boolean) forced}. Other files cost one small request here, to learn size and version;
 *       the version must be the one {@linkplain Builder#expectedVersion(String) seen when the caller validated it},
 *       else the download is a {@link SourceChangedException};</li>
 *   <li>the {@link Placement} is then chosen from the pinned source (a cache names the file by its version);</li>
 *   <li>a regular file already at the target with the source's size is kept only when the version recorded beside it
 *       is the source's version now, or its SHA-256 is the one the store published; otherwise it is fetched again and
 *       replaced atomically (a link at the target is never taken for the file, only replaced);</li>
 *   <li>the bytes go to the placement's partial file, beside which the source's {@linkplain #versionOf version} is
 *       recorded ({@link Placement#partialRecord()}). A partial file from an interrupted run is continued only when
 *       its record is the source's version now: its bytes are hashed from disk and only the rest is fetched, by
 *       ranged reads of the same pinned version, in parts over {@link ReadOptions#parallelism()} requests at once,
 *       written in order. A partial file with no record, another version's record, or a source with no version is
 *       discarded and the file fetched whole, so two versions are never spliced;</li>
 *   <li>the SHA-256 of the whole file is compared with the expected one when the placement gives one; a mismatch
 *       deletes the partial file and is a {@link SourceChangedException} ({@link ErrorCode#SOURCE_CHANGED}): the
 *       bytes are not the ones the store published;</li>
 *   <li>the file is synced and renamed into place atomically, and its version recorded beside it.</li>
 * </ol>
 * Nothing is opened through a link: a link, folder or FIFO where the partial file or its record belongs is refused,
 * never written through, deleted or renamed into place. That refusal, and every failure to write, sync or rename the
 * output (a full disk, a folder where a file must go), is {@link ErrorCode#WRITE_FAILED}. A failure leaves
 * the partial file and its record for the next run to continue (except a digest mismatch). Retries are the source's
 * ({@code RemotePolicy}).
 *
 * <p>Not thread-safe; one instance per file.
 */
public final class FileDownload {
    private final RandomAccessSource source;
    private final Placer placer;
    private final Limits limits;
    private final ReadOptions options;
    private final boolean force;
    private final boolean headerChecked;
    private final String expectedVersion;
    private final LongConsumer progress;

    /** Where a file goes, chosen once the source's version is pinned. */
    @FunctionalInterface
    public interface Placer {
        /**
         * @param source the source, its size and version known (its {@code attributes()} name the version)
         * @return where the file goes
         * @throws IOException if no place can be chosen
         */
        Placement place(RandomAccessSource source) throws IOException;
    }

    /**
     * Where one file goes.
     *
     * @param target         the final path
     * @param partial        where the bytes go until they are verified, on the same file system as {@code target}
     * @param expectedSha256 the lower-case hex SHA-256 the whole file must have, if the store publishes one
     * @param targetRecord   where the version of the file in place is recorded, if anywhere: without it, a file
     *                       already in place is kept only when its SHA-256 is {@code expectedSha256}
     */
    public record Placement(Path target, Path partial, Optional<String> expectedSha256, Optional<Path> targetRecord) {
        /**
         * @param target         the final path
         * @param partial        where the bytes go until they are verified
         * @param expectedSha256 the expected SHA-256, lower-case hex, or empty
         * @param targetRecord   where the version of the file in place is recorded, or empty
         */
        public Placement {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(partial, "partial");
            expectedSha256 = expectedSha256.map(s -> s.toLowerCase(Locale.ROOT));
            Objects.requireNonNull(targetRecord, "targetRecord");
        }

        /**
         * A placement that records no version for the file in place (a content-addressed blob).
         *
         * @param target         the final path
         * @param partial        where the bytes go until they are verified
         * @param expectedSha256 the expected SHA-256, lower-case hex, or empty
         */
        public Placement(Path target, Path partial, Optional<String> expectedSha256) {
            this(target, partial, expectedSha256, Optional.empty());
        }

        /**
         * @param target the final path
         * @return {@code target} with the partial file {@code .NAME.incomplete} and the version record
         *         {@code .NAME.version} beside it, and no expected digest
         */
        public static Placement beside(Path target) {
            String name = "." + target.getFileName();
            return new Placement(target, target.resolveSibling(name + ".incomplete"), Optional.empty(),
                    Optional.of(target.resolveSibling(name + ".version")));
        }

        /**
         * @param sha256 the lower-case hex SHA-256 the store published for the file, or empty
         * @return this placement expecting that digest
         */
        public Placement expecting(Optional<String> sha256) {
            return new Placement(target, partial, sha256, targetRecord);
        }

        /** @return where the version the partial file holds is recorded: {@code PARTIAL.version} beside it */
        public Path partialRecord() {
            return partial.resolveSibling(partial.getFileName() + ".version");
        }
    }

    /**
     * What a download did.
     *
     * @param target      the file in place
     * @param size        its size in bytes
     * @param resumedFrom the bytes a partial file already held, 0 for a fresh start
     * @param fetched     the payload bytes fetched by this run (the header probe excluded)
     * @param sha256      the file's SHA-256, lower-case hex, or empty when the file was already in place and its
     *                    recorded version said so without hashing
     * @param verified    whether it matched a digest the store published
     * @param skipped     whether the file was already in place and nothing was fetched
     * @param cost        the requests and bytes of this run, on the source
     */
    public record Result(Path target, long size, long resumedFrom, long fetched, Optional<String> sha256,
                         boolean verified, boolean skipped, SourceStatistics cost) {
    }

    private FileDownload(Builder b) {
        this.source = b.source;
        this.placer = b.placer;
        this.limits = b.limits;
        this.options = b.options;
        this.force = b.force;
        this.headerChecked = b.headerChecked;
        this.expectedVersion = b.expectedVersion;
        this.progress = b.progress;
    }

    /**
     * @param source the file to download; not closed here
     * @param placer where it goes, chosen once its version is known
     * @return a builder with strict limits, default read options, no force and no progress
     */
    public static Builder builder(RandomAccessSource source, Placer placer) {
        return new Builder(source, placer);
    }

    /**
     * The version of a source that a download records beside its partial file and compares on every later run: its
     * size and its ETag, version id or generation (what {@link dev.safetensors.SourceIdentity#versionOrEtag()}
     * reports once the source is pinned), or for a local file its size, modification time and file key.
     *
     * @param source an open source, its size already learned (by a header read or {@link RandomAccessSource#size()})
     * @return the version, one line of at most 1,024 bytes (longer is none); empty when the source
     *         reports none (then a partial file of it is never resumed and a file in place never trusted by version)
     * @throws IOException if the size cannot be learned
     */
    public static Optional<String> versionOf(RandomAccessSource source) throws IOException {
        String version;
        if (source instanceof FileSource file) {
            version = file.version();
        } else {
            Optional<String> id = source.identity().versionOrEtag();
            if (id.isEmpty()) {
                return Optional.empty();
            }
            version = "remote " + source.size() + " bytes, version " + id.get();
        }
        boolean control = version.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
        if (control || version.getBytes(StandardCharsets.UTF_8).length > DownloadFiles.MAX_RECORD_BYTES) {
            return Optional.empty();
        }
        return Optional.of(version);
    }

    /**
     * @param source   an open source
     * @param expected the version its header was validated at, or {@code null} for none
     * @param name     the source's name for the message
     * @return its version now ({@link #versionOf})
     * @throws SourceChangedException if it is not the one validated: the object was replaced in between
     * @throws IOException            if the size cannot be learned
     */
    static Optional<String> pinnedVersion(RandomAccessSource source, String expected, String name)
            throws IOException {
        Optional<String> version = versionOf(source);
        if (expected != null && !version.equals(Optional.of(expected))) {
            throw new SourceChangedException(name, "the object changed since its header was validated"
                    + " (validated: " + SourceNames.clip(expected) + "; now: "
                    + version.map(SourceNames::clip).orElse("no version") + ")");
        }
        return version;
    }

    /**
     * @param source an open source
     * @return the SHA-256 the source reports the store published for its content ({@link
     *         dev.safetensors.SourceIdentity#linkedSha256()}, the Hub's {@code X-Linked-Etag}), lower-case hex, when
     *         it is one (quotes and a weak marker removed); otherwise empty, and nothing is verified
     */
    public static Optional<String> publishedSha256(RandomAccessSource source) {
        // the identity holds it normalised, or not at all when what the store reported is no SHA-256
        return Optional.ofNullable(source.identity().linkedSha256());
    }

    /**
     * @return what was done
     * @throws InvalidHeaderException if a {@code .safetensors} file's header is invalid and the download is not
     *                                forced (nothing is fetched past the header)
     * @throws SourceChangedException if the bytes do not have the expected SHA-256, or the object changed (since it
     *                                was first read, or since the caller validated it)
     * @throws StorageException       with {@link ErrorCode#WRITE_FAILED} if the output cannot be written, a link or
     *                                anything but a regular file being where the partial file or its record belongs
     *                                included
     * @throws IOException            if a request fails (the partial file is kept to resume)
     */
    public Result run() throws IOException {
        SourceStatistics before = source.statistics();
        if (!headerChecked && Location.parse(source.name()).fileName().endsWith(Location.FILE_SUFFIX)) {
            try {
                Safetensors.readHeader(source, limits);
            } catch (SafetensorsException e) {
                if (!force || !(e instanceof InvalidHeaderException)) {
                    throw e;
                }
            }
        }
        long size = source.size();
        Optional<String> version = pinnedVersion(source, expectedVersion, source.name());
        Placement place = placer.place(source);
        Optional<Result> present = present(place, size, version, before);
        if (present.isPresent()) {
            progress.accept(size);
            return present.get();
        }
        createFolder(place.partial());
        Path record = place.partialRecord();
        BasicFileAttributes held = DownloadFiles.at(place.partial());
        DownloadFiles.requireRegularOrAbsent(place.partial(), held);
        DownloadFiles.requireRegularOrAbsent(record, DownloadFiles.at(record));
        // a partial file with a second name (a hard link to a file elsewhere) is not continued: only its name goes
        boolean resume = held != null && held.size() <= size && version.isPresent()
                && DownloadFiles.readRecord(record).equals(version) && DownloadFiles.soleName(place.partial(), held);
        if (!resume) {
            // another version's bytes, or bytes of no known version: never continued, so never spliced
            DownloadFiles.delete(place.partial());
            DownloadFiles.delete(record);
            held = null;
        }
        MessageDigest sha = Sha256.newDigest();
        long resumed;
        try (FileChannel out = DownloadFiles.openPartial(place.partial(), held)) {
            if (held == null && version.isPresent()) {
                DownloadFiles.writeRecord(record, version.get());
            }
            resumed = write(out, place.partial(), size, sha);
        }
        String digest = HexFormat.of().formatHex(sha.digest());
        boolean verified = false;
        if (place.expectedSha256().isPresent()) {
            if (!place.expectedSha256().get().equals(digest)) {
                DownloadFiles.delete(place.partial());
                DownloadFiles.delete(record);
                throw new SourceChangedException(source.name(), "the downloaded bytes have SHA-256 " + digest
                        + " but the store published " + place.expectedSha256().get() + "; the partial file was"
                        + " deleted");
            }
            verified = true;
        }
        publish(place, record, version);
        return new Result(place.target(), size, resumed, size - resumed, Optional.of(digest), verified, false,
                minus(source.statistics(), before));
    }

    /**
     * The file in place, when it is this version: a regular file (a link is never taken for it) of the source's size
     * whose recorded version is the source's, or whose SHA-256 is the one the store published.
     */
    private Optional<Result> present(Placement place, long size, Optional<String> version, SourceStatistics before)
            throws IOException {
        BasicFileAttributes a = DownloadFiles.at(place.target());
        if (a == null || !a.isRegularFile() || a.size() != size) {
            return Optional.empty();
        }
        if (version.isPresent() && place.targetRecord().isPresent()
                && DownloadFiles.readRecord(place.targetRecord().get()).equals(version)) {
            return Optional.of(new Result(place.target(), size, 0, 0, Optional.empty(), false, true,
                    minus(source.statistics(), before)));
        }
        if (place.expectedSha256().isEmpty()) {
            return Optional.empty();
        }
        MessageDigest sha = Sha256.newDigest();
        try (FileChannel in = FileChannel.open(place.target(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            if (hashHeld(in, size, sha) != size) {
                return Optional.empty();
            }
        } catch (IOException e) {
            // replaced meanwhile (by a link, say): not the file in place, so it is fetched again
            return Optional.empty();
        }
        String digest = HexFormat.of().formatHex(sha.digest());
        if (!digest.equals(place.expectedSha256().get())) {
            return Optional.empty();
        }
        return Optional.of(new Result(place.target(), size, 0, 0, Optional.of(digest), true, true,
                minus(source.statistics(), before)));
    }

    /** Hashes what the partial file holds, fetches the rest into it and syncs it; returns the bytes it held. */
    private long write(FileChannel out, Path partial, long size, MessageDigest sha) throws IOException {
        long resumed;
        try {
            resumed = hashHeld(out, out.size(), sha);
            progress.accept(resumed);
            out.position(resumed);
        } catch (IOException e) {
            throw DownloadFiles.writeFailed(partial, "cannot read the partial file back", e);
        }
        if (resumed < size) {
            long[] written = {resumed};
            // parallelism 1 is one streamed request for the whole rest, as a tensor read makes it
            long part = options.parallelism() == 1 ? Long.MAX_VALUE : options.partSizeBytes();
            OrderedFetch.run(source, resumed, FetchRanges.span(size - resumed, part), options.parallelism(),
                    options.partSizeBytes(), (at, bytes) -> {
                sha.update(bytes.duplicate());
                try {
                    while (bytes.hasRemaining()) {
                        written[0] += out.write(bytes);
                    }
                } catch (IOException e) {
                    throw DownloadFiles.writeFailed(partial, "cannot write the partial file", e);
                }
                progress.accept(written[0]);
            });
            if (written[0] != size) {
                // never a file shorter than its source under a final name, whatever delivered the bytes
                throw new StorageException(ErrorCode.TRUNCATED, source.name(), "the fetch delivered " + written[0]
                        + " of the object's " + size + " bytes");
            }
        }
        try {
            out.force(true);
        } catch (IOException e) {
            throw DownloadFiles.writeFailed(partial, "cannot sync the partial file", e);
        }
        return resumed;
    }

    /**
     * Renames the verified partial file into place (replacing whatever is there, a link included, without following
     * it), then its record beside the target. The target's old record goes first, so a crash between the steps
     * leaves a file with no record (fetched again), never a record of another version.
     */
    private static void publish(Placement place, Path record, Optional<String> version) throws IOException {
        createFolder(place.target());
        if (place.targetRecord().isPresent()) {
            DownloadFiles.delete(place.targetRecord().get());
        }
        AtomicFile.rename(place.partial(), place.target());
        if (version.isPresent() && place.targetRecord().isPresent()) {
            AtomicFile.rename(record, place.targetRecord().get());
        } else {
            DownloadFiles.delete(record);
        }
    }

    private static void createFolder(Path file) throws StorageException {
        Path folder = file.toAbsolutePath().getParent();
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw DownloadFiles.writeFailed(folder, "cannot create the folder", e);
        }
    }

    /** Hashes the bytes a partial file holds, so the digest covers the whole file; returns how many it holds. */
    private static long hashHeld(FileChannel in, long held, MessageDigest sha) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, Math.max(1, held)));
        long at = 0;
        while (at < held) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), held - at));
            int n = in.read(buffer, at);
            if (n < 0) {
                break;
            }
            buffer.flip();
            sha.update(buffer);
            at += n;
        }
        return at;
    }

    private static SourceStatistics minus(SourceStatistics after, SourceStatistics before) {
        return new SourceStatistics(after.requests() - before.requests(), after.bytesRead() - before.bytesRead(),
                after.exchanges() - before.exchanges());
    }

    /** Builds a {@link FileDownload}. Not thread-safe. */
    public static final class Builder {
        private final RandomAccessSource source;
        private final Placer placer;
        private Limits limits = Limits.STRICT;
        private ReadOptions options = ReadOptions.DEFAULT;
        private boolean force;
        private boolean headerChecked;
        private String expectedVersion;
        private LongConsumer progress = n -> { };

        private Builder(RandomAccessSource source, Placer placer) {
            this.source = Objects.requireNonNull(source, "source");
            this.placer = Objects.requireNonNull(placer, "placer");
        }

        /**
         * @param v the limits a header is validated against
         * @return this builder
         */
        public Builder limits(Limits v) {
            limits = Objects.requireNonNull(v, "limits");
            return this;
        }

        /**
         * @param v how many parts are fetched at once and how large they are
         * @return this builder
         */
        public Builder readOptions(ReadOptions v) {
            options = Objects.requireNonNull(v, "options");
            return this;
        }

        /**
         * @param v whether a file whose header is invalid is downloaded anyway
         * @return this builder
         */
        public Builder force(boolean v) {
            force = v;
            return this;
        }

        /**
         * @param v whether the caller already validated this source's header (a command that checks every file of a
         *          checkpoint before it downloads any): it is then not read again
         * @return this builder
         */
        public Builder headerChecked(boolean v) {
            headerChecked = v;
            return this;
        }

        /**
         * @param v the {@linkplain #versionOf version} the source had when the caller validated its header, or
         *          {@code null}: the download is a {@link SourceChangedException} if the source is not that version
         *          now, so what was checked is what is fetched
         * @return this builder
         */
        public Builder expectedVersion(String v) {
            expectedVersion = v;
            return this;
        }

        /**
         * @param v called on the downloading thread with the bytes of the file held so far
         * @return this builder
         */
        public Builder progress(LongConsumer v) {
            progress = Objects.requireNonNull(v, "progress");
            return this;
        }

        /** @return the download, not yet run */
        public FileDownload build() {
            return new FileDownload(this);
        }
    }
}
