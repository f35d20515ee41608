package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * What reading one shard's header found: its validated header, or why it could not be read or is invalid. One per
 * shard of a {@link CheckpointVerdict}, so that every bad shard is reported, not only the first.
 *
 * @param location where the shard is
 * @param header   its validated header, when it passed
 * @param failure  why it did not (an {@link IOException} carrying an {@link dev.safetensors.ErrorCode}), otherwise
 *                 empty
 * @param cost     the requests reading it took
 */
public record ShardVerdict(Location location, Optional<SafetensorsHeader> header, Optional<IOException> failure,
                           SourceStatistics cost) {
    /**
     * Checks that exactly one of header and failure is present.
     *
     * @param location where the shard is
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

    /** @return whether the shard's header was read and is valid */
    public boolean valid() {
        return header.isPresent();
    }
}
