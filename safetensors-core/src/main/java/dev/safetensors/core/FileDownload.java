package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;
import dev.safetensors.core.internal.read.FetchRanges;
import dev.safetensors.core.internal.read.OrderedFetch;
import dev.safetensors.core.internal.read.RangeStreamer;
import dev.safetensors.core.internal.read.RunCursor;

/**
 * Downloads one file from any {@link RandomAccessSource} to a local path, never leaving anything partial under the
 * final name:
 * <ol>
 *   <li>a {@code .safetensors} file's header is read and validated first (one request, which also pins the object's
 *       version); an invalid header ends the download before any payload byte is fetched, unless
 *       {@link Builder#force(boolean) forced}. Other files cost one small request here, to learn size and version;</li>
 *   <li>the {@link Placement} is then chosen from the pinned source (a cache names the file by its version);</li>
 *   <li>the bytes go to the placement's partial file. A partial file already there, from an interrupted run, is
 *       continued: its bytes are hashed from disk and only the rest is fetched, by ranged reads of the same pinned
 *       version, in parts over {@link ReadOptions#parallelism()} requests at once, written in order;</li>
 *   <li>the SHA-256 of the whole file is compared with the expected one when the placement gives one; a mismatch
 *       deletes the partial file and is a {@link SourceChangedException} ({@link ErrorCode#SOURCE_CHANGED}): the
 *       bytes are not the ones the store published;</li>
 *   <li>the file is synced and renamed into place atomically.</li>
 * </ol>
 * A failure leaves the partial file for the next run to continue (except a digest mismatch); a file already in
 * place with the expected size is not fetched again. Retries are the source's ({@code RemotePolicy}).
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
     */
    public record Placement(Path target, Path partial, Optional<String> expectedSha256) {
        /**
         * @param target         the final path
         * @param partial        where the bytes go until they are verified
         * @param expectedSha256 the expected SHA-256, lower-case hex, or empty
         */
        public Placement {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(partial, "partial");
            expectedSha256 = expectedSha256.map(s -> s.toLowerCase(Locale.ROOT));
        }

        /**
         * @param target the final path
         * @return {@code target} with the partial file {@code .NAME.incomplete} beside it and no expected digest
         */
        public static Placement beside(Path target) {
            return new Placement(target, target.resolveSibling("." + target.getFileName() + ".incomplete"),
                    Optional.empty());
        }
    }

    /**
     * What a download did.
     *
     * @param target      the file in place
     * @param size        its size in bytes
     * @param resumedFrom the bytes a partial file already held, 0 for a fresh start
     * @param fetched     the payload bytes fetched by this run (the header probe excluded)
     * @param sha256      the file's SHA-256, lower-case hex, or empty when the file was already in place
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
     * @return what was done
     * @throws InvalidHeaderException if a {@code .safetensors} file's header is invalid and the download is not
     *                                forced (nothing is fetched past the header)
     * @throws SourceChangedException if the bytes do not have the expected SHA-256, or the object changed
     * @throws IOException            if a request, a write or the rename fails (a partial file is kept to resume)
     */
    public Result run() throws IOException {
        SourceStatistics before = source.statistics();
        if (!headerChecked && source.name().endsWith(".safetensors")) {
            try {
                Safetensors.readHeader(source, limits);
            } catch (SafetensorsException e) {
                if (!force || !(e instanceof InvalidHeaderException)) {
                    throw e;
                }
            }
        }
        long size = source.size();
        Placement place = placer.place(source);
        if (Files.isRegularFile(place.target()) && Files.size(place.target()) == size) {
            progress.accept(size);
            return new Result(place.target(), size, 0, 0, Optional.empty(), false, true,
                    minus(source.statistics(), before));
        }
        Files.createDirectories(place.partial().toAbsolutePath().getParent());
        MessageDigest sha = sha256();
        long resumed = 0;
        try (FileChannel out = FileChannel.open(place.partial(), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            long held = out.size();
            if (held > size) {
                out.truncate(0);
                held = 0;
            }
            resumed = hashHeld(out, held, sha);
            progress.accept(resumed);
            out.position(resumed);
            if (resumed < size) {
                long[] written = {resumed};
                // parallelism 1 is one streamed request for the whole rest, as a tensor read makes it
                long part = options.parallelism() == 1 ? Long.MAX_VALUE & ~7L : options.partSizeBytes();
                OrderedFetch.run(source, resumed, new FetchRanges(new RunCursor(0, new long[0], new long[0],
                        size - resumed, 1), 0, part), options, (at, bytes) -> {
                    sha.update(bytes.duplicate());
                    while (bytes.hasRemaining()) {
                        written[0] += out.write(bytes);
                    }
                    progress.accept(written[0]);
                });
            }
            out.force(true);
        }
        String digest = HexFormat.of().formatHex(sha.digest());
        boolean verified = false;
        if (place.expectedSha256().isPresent()) {
            if (!place.expectedSha256().get().equals(digest)) {
                Files.deleteIfExists(place.partial());
                throw new SourceChangedException(source.name(), "the downloaded bytes have SHA-256 " + digest
                        + " but the store published " + place.expectedSha256().get() + "; the partial file was"
                        + " deleted");
            }
            verified = true;
        }
        Files.createDirectories(place.target().toAbsolutePath().getParent());
        try {
            Files.move(place.partial(), place.target(), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, place.target().toString(), "cannot rename "
                    + place.partial().getFileName() + " into place atomically (another file system?)", e);
        }
        return new Result(place.target(), size, resumed, size - resumed, Optional.of(digest), verified, false,
                minus(source.statistics(), before));
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

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Builds a {@link FileDownload}. Not thread-safe. */
    public static final class Builder {
        private final RandomAccessSource source;
        private final Placer placer;
        private Limits limits = Limits.STRICT;
        private ReadOptions options = ReadOptions.DEFAULT;
        private boolean force;
        private boolean headerChecked;
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
