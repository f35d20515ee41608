package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where a {@linkplain SafetensorsClient#download download} puts its files: a local folder ({@link #folder}), or a
 * cache that names files by their version (the command's Hugging Face cache). The download asks the target, file by
 * file, whether it already holds the file ({@link #held}), then opens a {@link Slot} for it, places the bytes where
 * the slot says once the source's version is pinned, and publishes them. Used by one download at a time.
 */
public interface DownloadTarget {
    /**
     * @param root the folder; created when the first file is written
     * @return a target that writes each file under {@code root} by its path below the location downloaded, with its
     *         partial file and version record beside it ({@link FileDownload.Placement#beside}), verified against
     *         the SHA-256 the source reports the store published ({@link FileDownload#publishedSha256})
     */
    static DownloadTarget folder(Path root) {
        return new FolderTarget(root);
    }

    /**
     * @param file a file of the download
     * @return where the target already holds it, when it knows without a request (a cache snapshot at a commit):
     *         the download then neither checks nor fetches it; empty by default
     * @throws IOException if the target cannot be read
     */
    default Optional<Path> held(Location file) throws IOException {
        return Optional.empty();
    }

    /**
     * @param file     a file of the download, its header already validated
     * @param relative its path below the location downloaded, checked safe (relative, no {@code .} or {@code ..}
     *                 segment), with {@code /} between segments
     * @return the slot the file is placed through; the download closes it
     * @throws IOException if the target cannot take the file (a request it makes fails, a lock is not granted)
     */
    Slot slot(Location file, String relative) throws IOException;

    /** Where one file goes, held from its fetch to its publication (a cache holds its blob's lock meanwhile). */
    interface Slot extends Closeable {
        /**
         * @param source the file's source, its size and version pinned
         * @return where its bytes go and the digest they must have
         * @throws IOException if no place can be chosen
         */
        FileDownload.Placement place(RandomAccessSource source) throws IOException;

        /**
         * @param placed the file in place at {@link FileDownload.Placement#target()}
         * @return the path the file is known by (a cache's snapshot link; the file itself in a folder)
         * @throws IOException if it cannot be published
         */
        Path publish(Path placed) throws IOException;

        /** @return the requests the slot made itself (a cache's {@code HEAD}); none by default */
        default SourceStatistics cost() {
            return SourceStatistics.NONE;
        }

        /** Releases what the slot holds; nothing by default. */
        @Override
        default void close() throws IOException {
        }
    }
}
