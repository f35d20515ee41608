package dev.safetensors.cli.output;

import java.io.PrintStream;
import java.util.EnumMap;
import java.util.Map;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * Counts results per status as they stream by, and closes the run: in text on stderr,
 * {@code safetensors: 5000 results: 4998 valid, 1 invalid, 1 error; listing: 5 requests}, what a recursive walk
 * did not follow ({@code ; not followed: 2 links to a folder or loop (models/latest, ...)}) and the subfolders and
 * prefixes a one-level listing did not enter ({@code ; not entered: 3 subfolders or prefixes (--recursive lists
 * them)}); under {@code --json} as the last object on stdout ({@link #json}). Only results on files and shards are
 * counted, and a checkpoint's line when it is not valid or has no shard lines of its own (a sharded checkpoint's
 * valid line repeats its shards' verdicts). Not thread-safe: fed on the thread that prints results.
 */
public final class RunSummary {
    private final Map<Status, Long> counts = new EnumMap<>(Status.class);
    private long total;
    private Status worst = Status.VALID;
    private long listingRequests;
    private long notFollowed;
    private String firstNotFollowed;
    private long skippedPrefixes;

    /** @param r a result just printed */
    public void count(SourceResult r) {
        worst = worst.worse(r.status());
        if (r.kind() == SourceResult.Kind.CHECKPOINT && r.status() == Status.VALID
                && r.checks().containsKey(Check.INDEX)) {
            return;
        }
        counts.merge(r.status(), 1L, Long::sum);
        total++;
    }

    /**
     * Adds what listing folders and prefixes cost and skipped, which no result line counts.
     *
     * @param requests    the requests spent listing
     * @param notFollowed the links to folders and loops the listings did not follow
     * @param first       the first of them, as shown, or {@code null}
     */
    public void listed(long requests, long notFollowed, String first) {
        listingRequests += requests;
        this.notFollowed += notFollowed;
        if (firstNotFollowed == null) {
            firstNotFollowed = first;
        }
    }

    /** @param n the subfolders and prefixes one-level listings did not enter */
    public void skippedPrefixes(long n) {
        skippedPrefixes = n;
    }

    /** @return the subfolders and prefixes one-level listings did not enter ({@code skipped_prefixes} in JSON) */
    long skippedPrefixes() {
        return skippedPrefixes;
    }

    /** @return how many results were counted */
    public long total() {
        return total;
    }

    /** @return how many results were counted with this status */
    long count(Status status) {
        return counts.getOrDefault(status, 0L);
    }

    /** @param err stderr, where the text summary goes */
    public void print(PrintStream err) {
        StringBuilder line = new StringBuilder("safetensors: ").append(total)
                .append(total == 1 ? " result" : " results");
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
                    .append(" to a folder or loop (").append(Sanitized.line(String.valueOf(firstNotFollowed), 200))
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

    /**
     * The summary object: {@code results}, {@code counts} (every status, zeros included), {@code requests} (the
     * listings': every other request is on the line of the result it was made for, so the lines add up to what
     * went on the wire), {@code not_followed}, when some were, {@code first_not_followed}, and
     * {@code skipped_prefixes} (the subfolders and prefixes one-level listings did not enter).
     *
     * @param command  the subcommand
     * @param exitCode the process's exit status
     * @return the object, without a line terminator
     */
    String json(String command, int exitCode) {
        // a run can fail past its results (a list of sources that could not be read): the exit status says so too
        Status status = exitCode == Status.ERROR.exitCode() ? worst.worse(Status.ERROR)
                : exitCode == Status.INVALID.exitCode() ? worst.worse(Status.INVALID) : worst;
        return CommandJson.summary(command, status, exitCode, g -> {
            g.writeNumberProperty("results", total);
            g.writeName("counts");
            g.writeStartObject();
            for (Status s : Status.values()) {
                g.writeNumberProperty(s.json(), count(s));
            }
            g.writeEndObject();
            g.writeNumberProperty("requests", listingRequests);
            g.writeNumberProperty("not_followed", notFollowed);
            if (firstNotFollowed != null) {
                g.writeStringProperty("first_not_followed", firstNotFollowed);
            }
            g.writeNumberProperty("skipped_prefixes", skippedPrefixes);
        });
    }
}
