package dev.safetensors.cli;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.NameGlob;
import dev.safetensors.core.PrefixSelection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The targets of a run, produced lazily from the locations to examine: a folder or prefix (written with a trailing
 * {@code /}, a local folder, or any non-file location under {@code --recursive}) is listed page by page through the
 * registry and its selected entries become targets; an index is expanded into its shards; anything else is one
 * file. Memory stays flat however long the listing: only the shards of indexes already seen are remembered (so a
 * shard is checked once, under its index), and shard-named files ({@code NAME-00001-of-00002.safetensors}) wait
 * until their prefix is listed whole, in case their index comes after them.
 */
final class TargetStream implements Iterator<Target> {
    private static final Pattern SHARD_NAME = Pattern.compile(".*-\\d{5}-of-\\d{5}\\.safetensors");

    private final Iterator<String> locations;
    private final SourceArguments arguments;
    private final SourceOpener opener;
    private final ShardExpander expander;
    private final ArrayDeque<Target> ready = new ArrayDeque<>();
    private final List<NameGlob> include;
    private final List<NameGlob> exclude;
    private long listingRequests;
    private boolean listedAny;
    private PrefixSelection listing;
    private String listed;
    private final Set<String> claimed = new HashSet<>();
    private final List<Location> prefixes = new ArrayList<>();
    private final List<Target.File> waiting = new ArrayList<>();

    /**
     * @param locations the locations to examine, in order
     * @param arguments the selection options
     * @param opener    opens indexes and lists prefixes
     * @param limits    the bounds on indexes and listings
     */
    TargetStream(Iterator<String> locations, SourceArguments arguments, SourceOpener opener, Limits limits) {
        this.locations = locations;
        this.arguments = arguments;
        this.opener = opener;
        this.expander = new ShardExpander(opener, limits);
        this.include = arguments.includes();
        this.exclude = arguments.excludes();
    }

    /** @return whether a folder or prefix was listed (or tried) so far */
    boolean listedAny() {
        return listedAny;
    }

    /** @return the folders and prefixes listed (or tried) so far, as given */
    List<Location> listedPrefixes() {
        return List.copyOf(prefixes);
    }

    /** @return the listing requests (pages) spent so far */
    long listingRequests() {
        return listingRequests + (listing == null ? 0 : listing.cost().requests());
    }

    @Override
    public boolean hasNext() {
        while (ready.isEmpty()) {
            if (listing != null) {
                step();
            } else if (locations.hasNext()) {
                start(locations.next());
            } else {
                return false;
            }
        }
        return true;
    }

    @Override
    public Target next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return ready.poll();
    }

    private void start(String text) {
        dev.safetensors.Location where = dev.safetensors.Location.parse(text);
        if (!isPrefix(where)) {
            addExpanded(text);
            return;
        }
        ListOptions options = ListOptions.DEFAULT.withRecursive(arguments.recursive);
        listedAny = true;
        prefixes.add(where);
        try {
            listing = PrefixSelection.open(opener.registry(), where, options, include, exclude);
            listed = where.display();
        } catch (IOException | RuntimeException e) {
            ready.add(Target.Checkpoint.failed(where.display(), Failure.from(e, where.display()),
                    SourceStatistics.NONE));
        }
    }

    private boolean isPrefix(dev.safetensors.Location where) {
        if (where.scheme().equals("hf") || where.text().isEmpty() || where.isIndex()
                || (where.uri().isEmpty() && where.looksLikeUri())) {
            // a Hub repository is expanded into its checkpoints by the expander; a malformed URI is reported as one
            return false;
        }
        if (!where.isLocal()) {
            // s3://bucket names no object (the opener says so); s3://bucket/ is the whole bucket
            return where.text().endsWith("/")
                    || (arguments.recursive && !where.fileName().endsWith(dev.safetensors.Location.FILE_SUFFIX));
        }
        if (where.isFolder()) {
            return true;
        }
        try {
            return Files.isDirectory(where.path());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Takes one selected entry from the listing in progress, or ends it. */
    private void step() {
        try {
            if (listing.hasNext()) {
                ListEntry entry = listing.next();
                String text = entry.location().text();
                String name = PrefixSelection.name(entry.location());
                if (entry.isFile() && name.endsWith(Location.INDEX_SUFFIX)) {
                    addExpanded(text);
                } else if (claimed.remove(text)) {
                    return; // checked under its index
                } else if (entry.isFile() && SHARD_NAME.matcher(name).matches()) {
                    waiting.add(Target.File.of(Location.parse(text)));
                } else {
                    ready.add(Target.File.of(Location.parse(text)));
                }
                return;
            }
            endListing();
        } catch (IOException | UncheckedIOException e) {
            String name = listed;
            SourceStatistics cost = listing.cost();
            endListing();
            ready.add(Target.Checkpoint.failed(name, Failure.from(e instanceof UncheckedIOException u ? u.getCause()
                    : e, name), cost));
        }
    }

    private void endListing() {
        listingRequests += listing.cost().requests();
        listing.close();
        listing = null;
        for (Target.File f : waiting) {
            if (!claimed.contains(f.location().text())) {
                ready.add(f);
            }
        }
        waiting.clear();
        claimed.clear();
    }

    private void addExpanded(String text) {
        for (Target t : expander.expand(text)) {
            if (t instanceof Target.Checkpoint c && listing != null) {
                for (Target.File shard : c.shards()) {
                    String s = shard.location().text();
                    if (!waiting.removeIf(w -> w.location().text().equals(s))) {
                        claimed.add(s);
                    }
                }
            }
            ready.add(t);
        }
    }
}
