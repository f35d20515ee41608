package dev.safetensors.cli;

import java.io.PrintStream;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts results per status as they stream by, and prints the closing line on stderr:
 * {@code safetensors: 5000 results: 4998 ok, 1 invalid, 1 error; listing: 5 requests}, and what a recursive walk
 * did not follow ({@code ; not followed: 2 links to a folder or loop (models/latest, ...)}), and the subfolders and
 * prefixes a one-level listing did not enter ({@code ; not entered: 3 subfolders or prefixes (--recursive lists
 * them)}). Only results on files and
 * shards are counted (a checkpoint's aggregate line repeats its shards' verdicts). Not thread-safe: fed on the
 * thread that prints results.
 */
final class RunSummary {
    private final Map<Status, Long> counts = new EnumMap<>(Status.class);
    private long total;
    private long skippedPrefixes;

    /** @param r a result just printed */
    void count(SourceResult r) {
        if (r.kind() == SourceResult.Kind.CHECKPOINT && r.status() == Status.VALID) {
            return;
        }
        counts.merge(r.status(), 1L, Long::sum);
        total++;
    }

    /** @param n the subfolders and prefixes one-level listings did not enter */
    void skippedPrefixes(long n) {
        skippedPrefixes = n;
    }

    /** @return the subfolders and prefixes one-level listings did not enter ({@code skipped_prefixes} in JSON) */
    long skippedPrefixes() {
        return skippedPrefixes;
    }

    /** @return how many results were counted */
    long total() {
        return total;
    }

    /** @return how many results were counted with this status */
    long count(Status status) {
        return counts.getOrDefault(status, 0L);
    }

    /**
     * @param err             stderr
     * @param listingRequests the requests spent listing folders and prefixes
     * @param notFollowed     the links to folders and loops the listings did not follow
     * @param first           the first of them, as shown, or {@code null}
     */
    void print(PrintStream err, long listingRequests, long notFollowed, String first) {
        StringBuilder line = new StringBuilder("safetensors: ").append(total).append(total == 1 ? " result" : " results");
        String sep = ": ";
        for (Status s : Status.values()) {
            long n = count(s);
            if (n > 0) {
                line.append(sep).append(n).append(' ').append(s.json());
                sep = ", ";
            }
        }
        line.append("; listing: ").append(listingRequests).append(listingRequests == 1 ? " request" : " requests");
        if (notFollowed > 0) {
            // said, never silent: what a recursive walk did not enter was not checked
            line.append("; not followed: ").append(notFollowed).append(notFollowed == 1 ? " link" : " links")
                    .append(" to a folder or loop (").append(Sanitized.line(String.valueOf(first), 200))
                    .append(notFollowed == 1 ? ")" : ", ...)");
        }
        if (skippedPrefixes > 0) {
            // a one-level listing is what was asked, but what it did not enter was not checked either
            line.append("; not entered: ").append(skippedPrefixes).append(skippedPrefixes == 1
                    ? " subfolder or prefix" : " subfolders or prefixes").append(" (--recursive lists them)");
        }
        err.println(line);
        err.flush();
    }
}
