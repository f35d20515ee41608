package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One file of a {@linkplain SafetensorsClient#download download}.
 *
 * @param source   where it came from; show it with {@link Location#display()}, never its text (it may hold secrets)
 * @param path     where it is now
 * @param download what fetching it did; empty when the target already held it and nothing was asked (a Hugging
 *                 Face cache snapshot at a commit)
 * @param cost     every request this file cost: its header check, its fetch, and what the target asked (the Hub's
 *                 {@code HEAD} for the cache); the listing and the index reads that found it are the download's
 *                 {@link DownloadResult#locatingCost()}
 */
public record DownloadedFile(Location source, Path path, Optional<FileDownload.Result> download,
                             SourceStatistics cost) {
    /**
     * Checks that no component is {@code null}.
     *
     * @param source   where it came from
     * @param path     where it is now
     * @param download what fetching it did, or empty
     * @param cost     every request it cost
     */
    public DownloadedFile {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(download, "download");
        Objects.requireNonNull(cost, "cost");
    }

    /** @return whether the file was already in place and no byte of it was fetched */
    public boolean present() {
        return download.isEmpty() || download.get().skipped();
    }
}
