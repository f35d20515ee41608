package dev.safetensors.spi;

import dev.safetensors.Location;

import java.util.Objects;
import java.util.Optional;

/**
 * An object an {@link ObjectUpload} committed.
 *
 * @param location where it is
 * @param size     its size in bytes, the bytes written
 * @param checksum the store's checksum of what it holds, compared with the bytes written, as {@code ALGORITHM:VALUE}
 *                 in the store's own notation ({@code crc32c:BASE64}, {@code sha256:HEX}); empty where the store
 *                 reports none (local files)
 */
public record WrittenObject(Location location, long size, Optional<String> checksum) {
    /**
     * Checks the fields.
     *
     * @param location where it is
     * @param size     its size in bytes
     * @param checksum the store's checksum, or empty
     * @throws IllegalArgumentException for a negative size
     */
    public WrittenObject {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(checksum, "checksum");
        if (size < 0) {
            throw new IllegalArgumentException("negative size " + size);
        }
    }
}
