package dev.safetensors.spi;

/**
 * How an {@link ObjectUpload} writes: whether it may replace an existing object, how large the object is expected
 * to be, and how it is cut into parts uploaded side by side. The memory an upload holds is at most
 * {@link #maxBufferedBytes()}, {@code (parallelism + 1) x partSize}, whatever the object's size. Immutable.
 *
 * @param overwrite   whether an existing object may be replaced; without it the upload is a conditional create
 * @param sizeHint    the object's expected size in bytes, or {@value #UNKNOWN_SIZE} when unknown: a provider may
 *                    upload an object that fits in one part with a single request, and choose larger parts for an
 *                    object that would otherwise exceed the store's part count
 * @param partSize    the bytes of each part but the last, from {@value #MIN_PART_SIZE} (S3's smallest part) to
 *                    {@value #MAX_PART_SIZE}; stores with other bounds round to theirs
 * @param parallelism how many parts may upload at once, from 1 to {@value #MAX_PARALLELISM}
 */
public record UploadOptions(boolean overwrite, long sizeHint, int partSize, int parallelism) {
    /** The size hint that says nothing. */
    public static final long UNKNOWN_SIZE = -1;
    /** Default part size: 8 MiB, S3's and the AWS CLI's multipart chunk. */
    public static final int DEFAULT_PART_SIZE = 8 << 20;
    /** The smallest part size accepted: S3 refuses smaller parts but the last. */
    public static final int MIN_PART_SIZE = 5 << 20;
    /** The largest part size accepted: 512 MiB, so that one part stays an array the JVM can hold. */
    public static final int MAX_PART_SIZE = 512 << 20;
    /** Default parallelism: 4 parts in flight, 32 MiB held at the default part size. */
    public static final int DEFAULT_PARALLELISM = 4;
    /** The most parts accepted in flight. */
    public static final int MAX_PARALLELISM = 64;

    /** A conditional create of unknown size, with the default part size and parallelism. */
    public static final UploadOptions DEFAULT = new UploadOptions(false, UNKNOWN_SIZE, DEFAULT_PART_SIZE,
            DEFAULT_PARALLELISM);

    /**
     * Checks the bounds.
     *
     * @param overwrite   whether an existing object may be replaced
     * @param sizeHint    the expected size, or {@value #UNKNOWN_SIZE}
     * @param partSize    the bytes of each part but the last
     * @param parallelism the parts in flight
     * @throws IllegalArgumentException if a value is out of range
     */
    public UploadOptions {
        if (sizeHint < UNKNOWN_SIZE) {
            throw new IllegalArgumentException("sizeHint must be a size or " + UNKNOWN_SIZE + ", was " + sizeHint);
        }
        if (partSize < MIN_PART_SIZE || partSize > MAX_PART_SIZE) {
            throw new IllegalArgumentException("partSize must be from " + MIN_PART_SIZE + " to " + MAX_PART_SIZE
                    + ", was " + partSize);
        }
        if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
            throw new IllegalArgumentException("parallelism must be from 1 to " + MAX_PARALLELISM + ", was "
                    + parallelism);
        }
    }

    /**
     * @param overwrite whether an existing object may be replaced
     * @return these options with that overwrite rule
     */
    public UploadOptions withOverwrite(boolean overwrite) {
        return new UploadOptions(overwrite, sizeHint, partSize, parallelism);
    }

    /**
     * @param sizeHint the expected size, or {@value #UNKNOWN_SIZE}
     * @return these options with that size hint
     * @throws IllegalArgumentException if it is out of range
     */
    public UploadOptions withSizeHint(long sizeHint) {
        return new UploadOptions(overwrite, sizeHint, partSize, parallelism);
    }

    /**
     * @param partSize    the bytes of each part but the last
     * @param parallelism the parts in flight
     * @return these options with that part size and parallelism
     * @throws IllegalArgumentException if one is out of range
     */
    public UploadOptions withParts(int partSize, int parallelism) {
        return new UploadOptions(overwrite, sizeHint, partSize, parallelism);
    }

    /**
     * @return the most bytes of content an upload with these options holds at once: {@code (parallelism + 1) x
     *         partSize}, the parts in flight and the one being filled, so that {@code parallelism} parts upload side
     *         by side while the next fills
     */
    public long maxBufferedBytes() {
        return (long) partSize * (parallelism + 1);
    }
}
