package dev.safetensors.cli.checks;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.NameGlob;
import dev.safetensors.core.PrefixSelection;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.Selection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/**
 * The targets of a run, produced lazily from the locations to examine: a folder or prefix (written with a trailing
 * {@code /}, a local folder, or any non-file location under {@code --recursive}) is listed page by page through the
 * registry and its selected entries become targets; an index is expanded into its shards; anything else is one
 * file. Memory stays flat however long the listing: only the shards of indexes already seen are remembered (so a
 * shard is checked once, under its index), and shard-named files ({@code NAME-00001-of-00002.safetensors}) wait
 * until their prefix is listed whole, in case their index comes after them. Both are bounded by
 * {@link ListOptions#maxHeldBack()} per listing: past it the oldest waiting file is checked on its own at once, and
 * the oldest remembered shard is forgotten (listed later, it is checked on its own too), so a file may be checked
 * twice, never skipped. What the listing could not walk or name becomes an {@code ERROR} target: a subfolder whose
 * reading was refused ({@code ACCESS_DENIED}) or failed ({@code IO_ERROR}), a name no request can name
 * ({@code INVALID_LISTING}); links to folders and loops a walk does not follow are counted ({@link #notFollowed()}),
 * and so are the subfolders and prefixes a one-level listing does not enter ({@link #skippedPrefixes()}).
 *
 * <p>Across the run, the shards of every index expanded are remembered (the most recent
 * {@link ListOptions#maxHeldBack()} of them): a later location naming one of them again (a list piped in that names
 * an index and then its shards) is not checked a second time. An index is one checkpoint, checked whole: an
 * {@code --exclude} glob selects among the entries of folders and prefixes and never drops a shard its index names;
 * when it matches one, a warning says so.
 */
public final class TargetStream implements Iterator<Target> {
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
    private final ListOptions base;
    /** The shards of indexes seen in the listing under way, oldest first, not listed yet. */
    private final Set<String> claimed = new LinkedHashSet<>();
    private final List<Location> prefixes = new ArrayList<>();
    /** Shard-named files waiting for their index, oldest first, by location text. */
    private final Map<String, Target.File> waiting = new LinkedHashMap<>();
    private long notFollowed;
    private String firstNotFollowed;
    private long skippedPrefixes;
    /** The shards of the indexes expanded this run, oldest first, by {@link Target#key(Location)}. */
    private final Set<String> checkedShards = new LinkedHashSet<>();
    private Consumer<String> warnings = w -> { };

    /**
     * @param locations the locations to examine, in order
     * @param arguments the selection options
     * @param opener    opens indexes and lists prefixes
     * @param limits    the bounds on indexes and listings
     */
    TargetStream(Iterator<String> locations, SourceArguments arguments, SourceOpener opener, Limits limits) {
        this(locations, arguments, opener, limits, ListOptions.DEFAULT);
    }

    /**
     * @param locations the locations to examine, in order
     * @param arguments the selection options
     * @param opener    opens indexes and lists prefixes
     * @param limits    the bounds on indexes and listings
     * @param base      the listing options before {@code --recursive}: page size and bounds
     */
    TargetStream(Iterator<String> locations, SourceArguments arguments, SourceOpener opener, Limits limits,
                 ListOptions base) {
        this.base = base;
        this.locations = locations;
        this.arguments = arguments;
        this.opener = opener;
        this.expander = new ShardExpander(opener, limits, arguments.indexFiles);
        this.include = arguments.includes();
        this.exclude = arguments.excludes();
    }

    /**
     * @param sink told each warning (a line without the {@code safetensors: } prefix), on the consuming thread
     * @return this stream
     */
    TargetStream warnings(Consumer<String> sink) {
        this.warnings = sink;
        return this;
    }

    /** @return whether a folder or prefix was listed (or tried) so far */
    boolean listedAny() {
        return listedAny;
    }

    /** @return the folders and prefixes listed (or tried) so far, as given */
    List<Location> listedPrefixes() {
        return List.copyOf(prefixes);
    }

    /** @return the links to folders and the loops that listings met and did not follow, so far */
    long notFollowed() {
        return notFollowed;
    }

    /** @return the first of {@link #notFollowed()}, as shown, or {@code null} */
    String firstNotFollowed() {
        return firstNotFollowed;
    }

    /** @return the subfolders and prefixes one-level listings met and did not enter, so far */
    long skippedPrefixes() {
        return skippedPrefixes + (listing == null || arguments.recursive ? 0 : listing.skippedFolders());
    }

    /** @return how many entries the listing under way holds back: waiting files and remembered shards */
    int heldBack() {
        return waiting.size() + claimed.size();
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
            if (!checkedShards.contains(Target.key(where))) {
                addExpanded(text);
            }
            return;
        }
        listedAny = true;
        prefixes.add(where);
        try {
            listing = SafetensorsClient.builder().registry(opener.registry()).listOptions(base).build()
                    .select(where, new Selection(include, exclude, arguments.recursive));
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
                if (PrefixSelection.unwalked(entry)) {
                    unwalked(entry);
                } else if (entry.isFile() && name.endsWith(Location.INDEX_SUFFIX)) {
                    addExpanded(text);
                } else if (claimed.remove(text) || checkedShards.contains(Target.key(entry.location()))) {
                    return; // checked under its index
                } else if (entry.isFile() && SHARD_NAME.matcher(name).matches()) {
                    waiting.put(text, Target.File.of(Location.parse(text)));
                    if (waiting.size() > base.maxHeldBack()) {
                        // its index, if any, did not come within the bound: checked on its own rather than held
                        Iterator<Target.File> oldest = waiting.values().iterator();
                        ready.add(oldest.next());
                        oldest.remove();
                    }
                } else {
                    ready.add(Target.File.of(Location.parse(text)));
                }
                return;
            }
            endListing(true);
        } catch (IOException | UncheckedIOException e) {
            String name = listed;
            SourceStatistics cost = listing.cost();
            // the failed prefix's line reports what listing it cost; the summary's listing requests do not again
            endListing(false);
            ready.add(Target.Checkpoint.failed(name, Failure.from(e instanceof UncheckedIOException u ? u.getCause()
                    : e, name), cost));
        }
    }

    /** What the listing could not walk or name: an {@code ERROR} target, or a count for what was not followed. */
    private void unwalked(ListEntry entry) {
        String shown = entry.location().display();
        Failure failure = switch (entry.kind()) {
            case DENIED -> Failure.of(Status.ERROR, ErrorCode.ACCESS_DENIED, "permission denied: the folder"
                    + " cannot be listed, so nothing it holds was checked (check its permissions, or run as a user"
                    + " who may read it)", null);
            case INVALID_NAME -> Failure.of(Status.ERROR, ErrorCode.INVALID_LISTING, "the listing names an"
                    + " object no request can name exactly (a NUL, a lone surrogate shown here as U+FFFD, or a . or"
                    + " .. segment the store resolves): it was not opened", null);
            case FOLDER_LINK, LOOP -> null;
            default -> Failure.of(Status.ERROR, ErrorCode.IO_ERROR, "could not be read while listing (the"
                    + " file system failed, or it went during the walk), so nothing it holds was checked", null);
        };
        if (failure == null) {
            notFollowed++;
            if (firstNotFollowed == null) {
                firstNotFollowed = shown;
            }
            return;
        }
        ready.add(Target.Checkpoint.failed(shown, failure, SourceStatistics.NONE));
    }

    /** @param counted whether the listing's requests go to {@link #listingRequests()}, not to a result's line */
    private void endListing(boolean counted) {
        if (!arguments.recursive) {
            skippedPrefixes += listing.skippedFolders();
        }
        if (counted) {
            listingRequests += listing.cost().requests();
        }
        listing.close();
        listing = null;
        ready.addAll(waiting.values());
        waiting.clear();
        claimed.clear();
    }

    private void addExpanded(String text) {
        for (Target t : expander.expand(text)) {
            if (t instanceof Target.Checkpoint c) {
                remember(c);
            }
            if (t instanceof Target.Checkpoint c && listing != null) {
                for (Target.File shard : c.shards()) {
                    String s = shard.location().text();
                    if (waiting.remove(s) == null && claimed.add(s) && claimed.size() > base.maxHeldBack()) {
                        // forgotten: listed later, that shard is checked on its own as well
                        Iterator<String> oldest = claimed.iterator();
                        oldest.next();
                        oldest.remove();
                    }
                }
            }
            ready.add(t);
        }
    }

    /**
     * Remembers a checkpoint's shards for the rest of the run, forgetting the oldest past the bound (a shard
     * forgotten and named again is checked twice, never skipped), and warns when an exclude glob names one of them.
     */
    private void remember(Target.Checkpoint c) {
        String excluded = null;
        int matched = 0;
        for (Target.File shard : c.shards()) {
            if (checkedShards.add(Target.key(shard.location())) && checkedShards.size() > base.maxHeldBack()) {
                Iterator<String> oldest = checkedShards.iterator();
                oldest.next();
                oldest.remove();
            }
            String name = PrefixSelection.name(shard.location());
            if (NameGlob.any(exclude, name)) {
                matched++;
                excluded = excluded == null ? name : excluded;
            }
        }
        if (excluded != null) {
            warnings.accept(c.source() + ": --exclude matches " + (matched == 1 ? "its shard " : matched
                    + " of its shards, such as ") + Sanitized.line(excluded, 200) + ", which is checked all the same:"
                    + " an index is one checkpoint and its shards are checked whole (to skip the checkpoint,"
                    + " exclude its index)");
        }
    }
}
