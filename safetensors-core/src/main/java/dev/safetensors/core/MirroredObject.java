package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;

import java.util.Objects;
import java.util.Optional;

/**
 * One file of a {@linkplain SafetensorsClient#mirror mirror}: copied from its source into an object of the store.
 *
 * @param source        where it came from; show it with {@link Location#display()}, never its text
 * @param object        the object it was committed as
 * @param size          its size in bytes
 * @param sha256        the SHA-256 of the bytes copied, lower-case hex
 * @param verified      whether that digest was compared with, and equals, the one the source's store published (the
 *                      Hub's, for LFS files); {@code false} when it publishes none
 * @param storeChecksum the checksum the destination store reported of what it holds, compared by its writer with the
 *                      bytes sent (such as {@code crc32c:BASE64}); empty where the store reports none
 * @param cost          the requests made of the source for this file: its header check and its fetch
 */
public record MirroredObject(Location source, Location object, long size, String sha256, boolean verified,
                             Optional<String> storeChecksum, SourceStatistics cost) {
    /**
     * Checks that no component is {@code null}.
     *
     * @param source        where it came from
     * @param object        the object written
     * @param size          its size
     * @param sha256        its digest
     * @param verified      whether the digest was verified against a published one
     * @param storeChecksum the destination's checksum, or empty
     * @param cost          the requests it cost
     */
    public MirroredObject {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(storeChecksum, "storeChecksum");
        Objects.requireNonNull(cost, "cost");
    }
}
