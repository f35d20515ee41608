package dev.safetensors.s3;

/**
 * An object held by {@link S3ObjectsTransformer}: its first bytes and its size, every byte past the prefix being
 * zero, so that a 1 GiB checkpoint costs only its header in memory.
 *
 * @param prefix the stored bytes
 * @param size   the object size, at least {@code prefix.length}
 * @param etag   the quoted ETag the server reports
 */
record StoredObject(byte[] prefix, long size, String etag) {

    static StoredObject of(byte[] content, String etag) {
        return new StoredObject(content, content.length, etag);
    }

    /** @return bytes {@code first..last} inclusive */
    byte[] bytes(long first, long last) {
        byte[] out = new byte[Math.toIntExact(last - first + 1)];
        if (first < prefix.length) {
            int end = (int) Math.min(prefix.length, last + 1);
            System.arraycopy(prefix, (int) first, out, 0, end - (int) first);
        }
        return out;
    }
}
