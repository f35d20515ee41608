package dev.safetensors.core;

import dev.safetensors.SourceStatistics;

import java.util.List;
import java.util.Objects;

/**
 * What a {@linkplain SafetensorsClient#download download} did.
 *
 * @param files        every file, in the order they were fetched
 * @param locatingCost the requests spent finding them: the listing or repository call, and the index reads; with
 *                     the files' {@link DownloadedFile#cost()}s it is every request the download made
 */
public record DownloadResult(List<DownloadedFile> files, SourceStatistics locatingCost) {
    /**
     * Copies the list.
     *
     * @param files        every file
     * @param locatingCost the requests spent finding them
     */
    public DownloadResult {
        files = List.copyOf(files);
        Objects.requireNonNull(locatingCost, "locatingCost");
    }

    /** @return every request the download made: finding the files, then each file's */
    public SourceStatistics cost() {
        SourceStatistics total = locatingCost;
        for (DownloadedFile f : files) {
            total = total.plus(f.cost());
        }
        return total;
    }
}
