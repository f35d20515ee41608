package dev.safetensors.gcs;

import com.google.api.client.http.HttpHeaders;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RangeVerifier;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;

/**
 * The checks a media GET's status and headers must pass before a single body byte is used, in this order:
 * <ol>
 *   <li>{@code Content-Encoding} and {@code x-goog-stored-content-encoding} are absent or {@code identity}:
 *       GCS transcodes gzip-stored objects, and then byte ranges no longer address the stored bytes;</li>
 *   <li>{@code x-goog-generation} is present and equals the generation asked for or pinned
 *       ({@link dev.safetensors.SourceChangedException} otherwise);</li>
 *   <li>status 206 and {@code Content-Range} equal to the range asked and to the size seen before
 *       ({@link RangeVerifier});</li>
 *   <li>{@code Content-Length}, when sent, equals the range length, and {@code x-goog-stored-content-length},
 *       when sent, equals the size in {@code Content-Range}.</li>
 * </ol>
 * The body itself is then counted by {@link dev.safetensors.spi.VerifiedRangeChannel}.
 */
final class ResponseChecks {
    private ResponseChecks() {
    }

    /**
     * @return the verified range; its length is the exact number of body bytes to take
     * @throws IOException a {@link RangeNotHonouredException}, a {@link dev.safetensors.SourceChangedException}, or a
     *                     plain {@code IOException} for a transcoded object or a response without a generation
     */
    static ContentRange verify(String name, int status, HttpHeaders headers, long position, long length,
                               GenerationPin pin) throws IOException {
        refuseTranscoding(name, "Content-Encoding", headers.getContentEncoding());
        refuseTranscoding(name, "x-goog-stored-content-encoding",
                headers.getFirstHeaderStringValue("x-goog-stored-content-encoding"));
        long generation = generation(name, headers.getFirstHeaderStringValue("x-goog-generation"));
        // Before the range check: a replaced object usually has another size too, and "changed" is the truer report.
        pin.requireGeneration(generation);
        ContentRange range = RangeVerifier.verify(name, status, headers.getContentRange(), position, length,
                pin.knownSize());
        Long contentLength = headers.getContentLength();
        if (contentLength != null && contentLength != range.length()) {
            throw new RangeNotHonouredException(name, "Content-Range " + range + " promises " + range.length()
                    + " bytes but Content-Length is " + contentLength);
        }
        String stored = headers.getFirstHeaderStringValue("x-goog-stored-content-length");
        if (stored != null && !stored.trim().equals(Long.toString(range.total()))) {
            throw new RangeNotHonouredException(name, "Content-Range " + range + " disagrees with"
                    + " x-goog-stored-content-length '" + SourceNames.clip(stored) + "'");
        }
        pin.check(new ObjectIdentity(generation, range.total(), headers.getETag()));
        return range;
    }

    static void refuseTranscoding(String name, String header, String value) throws IOException {
        if (value != null && !value.isBlank() && !value.trim().equalsIgnoreCase("identity")) {
            throw new IOException(name + ": the object is stored with Content-Encoding '"
                    + SourceNames.clip(value.trim()) + "' (" + header + "); Cloud Storage decompresses such objects"
                    + " on the fly and ignores byte ranges, so they cannot be read as safetensors."
                    + " Store the file without a Content-Encoding.");
        }
    }

    private static long generation(String name, String value) throws IOException {
        String v = value == null ? "" : value.trim();
        if (v.isEmpty() || v.length() > 18 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IOException(name + ": the response carries " + (value == null ? "no x-goog-generation header"
                    : "a malformed x-goog-generation '" + SourceNames.clip(value) + "'")
                    + ", so the object version cannot be pinned");
        }
        return Long.parseLong(v);
    }
}
