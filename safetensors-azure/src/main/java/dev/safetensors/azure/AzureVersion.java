package dev.safetensors.azure;

/**
 * Which blob a source reads: the ETag pinned from the first answer (sent as {@code If-Match} on every later request),
 * and the version id the answers report or the location asked for.
 *
 * @param etag      the ETag, or {@code null} before the first answer
 * @param versionId the version id, or {@code null} when the account keeps no versions and none was asked for
 */
record AzureVersion(String etag, String versionId) {
    @Override
    public String toString() {
        return etag != null ? etag : String.valueOf(versionId);
    }
}
