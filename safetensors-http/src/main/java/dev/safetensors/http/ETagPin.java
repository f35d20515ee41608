package dev.safetensors.http;

/**
 * A strong ETag and the origin that reported it. {@code If-Match} carries it only back to that origin: the Hub's
 * resolve endpoint and its CDN each have their own ETags, and sending one's to the other would fail a good read.
 *
 * @param etag   the strong entity tag, quotes included
 * @param origin where it was seen
 */
record ETagPin(String etag, Origin origin) {
}
