package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * What reading one file's header found: its validated header, or why it could not be read or is invalid. One per
 * file of a {@link SafetensorsClient#check}, so that every bad shard is reported, not only the first.
 *
 * @param location where the file is
 * @param header   its validated header, when it passed
 * @param failure  why it did not (an {@link IOException} carrying an {@link dev.safetensors.ErrorCode}), otherwise
 *                 empty
 * @param cost     the requests reading it took
 */
public record ShardVerdict(Location location, Optional<SafetensorsHeader> header, Optional<IOException> failure,
                           SourceStatistics cost) implements CheckVerdict {
    /**
     * Checks that exactly one of header and failure is present.
     *
     * @param location where the file is
     * @param header   its header, when it passed
     * @param failure  why it did not
     * @param cost     the requests reading it took
     */
    public ShardVerdict {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(cost, "cost");
        if (header.isPresent() == failure.isPresent()) {
            throw new IllegalArgumentException("a shard verdict holds a header or a failure, not both or neither");
        }
    }

    /** @return whether the file's header was read and is valid */
    @Override
    public boolean valid() {
        return header.isPresent();
    }
}
