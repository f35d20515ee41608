package dev.safetensors.http;

import java.util.Optional;

/**
 * What the Hub says about one file in answer to a {@code HEAD} of its resolve URL, as {@code huggingface_hub}'s
 * {@code get_hf_file_metadata} reads it.
 *
 * @param commit the commit the revision resolved to ({@code X-Repo-Commit})
 * @param etag   the blob's name in the cache: {@code X-Linked-Etag} (an LFS file's SHA-256) or else {@code ETag} (the
 *               git blob id), without quotes
 * @param size   the file's size ({@code X-Linked-Size}, else {@code Content-Length}), or -1 if not said
 * @param sha256 the file's SHA-256 when the Hub publishes one (an LFS file), lower-case hex
 */
public record HubFileMetadata(String commit, String etag, long size, Optional<String> sha256) {
}
