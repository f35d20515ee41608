package dev.safetensors.cli.checks;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;

import java.io.IOException;
import java.net.URI;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.results.SourceResult;

/**
 * The hint a remote location that is not found gets when it is a prefix written without its trailing {@code /}:
 * {@code validate s3://bucket/ckpt} names no object, but {@code s3://bucket/ckpt/} holds a checkpoint, so the
 * {@code NOT_FOUND} message adds "did you mean s3://bucket/ckpt/?". Finding out costs one listing request of at most
 * {@value #PAGE} entries, spent only on that failure and counted in the result's requests; a listing that fails or
 * holds nothing adds nothing. A name that ends as a file does ({@code .safetensors}, {@code .safetensors.index.json})
 * names a file that is gone, not a prefix, and costs nothing more (a manifest's missing entries stay one request
 * each).
 */
final class PrefixHint {
    /** The entries the one listing request asks for: a directory marker ({@code ckpt/} itself) and one more. */
    static final int PAGE = 2;
    private static final ListOptions ONE_REQUEST = new ListOptions(true, PAGE, PAGE, 1);

    private PrefixHint() {
    }

    /**
     * Adds the hint to a result that failed {@code NOT_FOUND} when its location, with a {@code /} added, is a prefix
     * holding files; leaves any other result alone.
     *
     * @param result the result being built
     * @param file   the file it is about
     * @param opener lists the prefix
     */
    static void add(SourceResult.Builder result, Target.File file, SourceOpener opener) {
        Location location = file.location();
        if (file.checkpoint() != null || !result.failure().map(f -> f.code() == ErrorCode.NOT_FOUND)
                .orElse(false) || !applies(location)) {
            return;
        }
        Location prefix = Location.parse(location.text() + "/");
        try (Listing listing = opener.registry().list(prefix, ONE_REQUEST)) {
            try {
                while (listing.hasNext()) {
                    ListEntry e = listing.next();
                    if (e.isFile() && !e.location().text().equals(prefix.text())) {
                        result.hint("; did you mean " + prefix.display() + "? That prefix holds files (a folder"
                                + " or prefix is written with a trailing /)");
                        return;
                    }
                }
            } finally {
                result.cost(listing.cost());
            }
        } catch (IOException | RuntimeException e) {
            // no hint: the listing was refused, failed or needed a second request; the failure stands as it is
        }
    }

    /**
     * A remote location of a listable store, not a Hub repository, with no query, fragment or trailing slash, whose
     * name is not a file's.
     */
    private static boolean applies(Location location) {
        if (location.isLocal() || location.scheme().equals("hf") || location.text().endsWith("/")
                || location.fileName().endsWith(Location.FILE_SUFFIX) || location.isIndex()) {
            return false;
        }
        URI uri = location.uri().orElse(null);
        return uri != null && uri.getRawQuery() == null && uri.getRawFragment() == null
                && !uri.getScheme().startsWith("http");
    }
}
