package dev.safetensors.core;

import dev.safetensors.SourceStatistics;

import java.util.List;
import java.util.Objects;

/**
 * What a {@linkplain SafetensorsClient#mirror mirror} did.
 *
 * @param objects      the objects committed, in the order they were: every other file first, the indexes last
 * @param locatingCost the requests the listing and the index reads that found the files made
 */
public record MirrorResult(List<MirroredObject> objects, SourceStatistics locatingCost) {
    /**
     * Copies the list.
     *
     * @param objects      the objects committed
     * @param locatingCost what finding the files cost
     */
    public MirrorResult {
        objects = List.copyOf(objects);
        Objects.requireNonNull(locatingCost, "locatingCost");
    }

    /** @return every request: finding the files, and each file's */
    public SourceStatistics cost() {
        SourceStatistics total = locatingCost;
        for (MirroredObject o : objects) {
            total = total.plus(o.cost());
        }
        return total;
    }
}
