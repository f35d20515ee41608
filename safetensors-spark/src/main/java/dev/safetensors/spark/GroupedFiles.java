package dev.safetensors.spark;

import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.core.internal.index.OrderedWindow;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Turns the files a scan selects, in the order the listings give them, into the groups tasks read, handing each on
 * as soon as it is known, in memory that does not grow with the listing: an index
 * ({@code *.safetensors.index.json}, with {@code expandIndex}) becomes one group with the shards it names, read on
 * the driver {@code ioThreads} at a time; any other file is a group of its own.
 *
 * <p>What it holds back is bounded by {@link ListOptions#DEFAULT_MAX_HELD_BACK} each, as the command's listing is:
 * files wait for an index that may name them, which a listing often gives after them ({@code model-00001-of-00002}
 * sorts before {@code model.safetensors.index.json}), until the listing ends or the bound is passed (then the oldest
 * is read on its own); the shards of indexes seen and not listed yet are remembered, so a shard listed after its
 * index is read once, under it; and the files handed on lately are remembered, so a file two locations list is read
 * once. Past a bound, a file may be read twice (on its own and under its index, or under two locations), never skipped. Entries are taken
 * a batch at a time, so that the batch's indexes are read side by side.
 */
final class GroupedFiles implements AutoCloseable {
    /** Entries whose indexes are read side by side. */
    private static final int BATCH = 1024;
    private static final int BOUND = ListOptions.DEFAULT_MAX_HELD_BACK;

    private final ScanOptions options;
    private final Consumer<FileGroup> sink;
    private final List<FileListing.Found> batch = new ArrayList<>();
    /** Files waiting for an index that may name them, oldest first, by location. */
    private final Map<String, FileListing.Found> waiting = new LinkedHashMap<>();
    /** The shards of indexes handed on whose listing entry has not come yet, oldest first. */
    private final Set<String> claimed = new LinkedHashSet<>();
    /** The files and indexes handed on lately, oldest first. */
    private final Set<String> recent = new LinkedHashSet<>();

    /**
     * @param options the scan's options: {@code expandIndex}, {@code ioThreads} and the client that reads indexes
     * @param sink    takes each group, on the adding thread
     */
    GroupedFiles(ScanOptions options, Consumer<FileGroup> sink) {
        this.options = options;
        this.sink = sink;
    }

    /** @param found the next file selected, in listing order */
    void add(FileListing.Found found) {
        batch.add(found);
        if (batch.size() >= BATCH) {
            flush();
        }
    }

    /** Ends a listing: every file still waiting for an index is handed on alone. */
    void endListing() {
        flush();
        List<FileListing.Found> alone = new ArrayList<>(waiting.values());
        waiting.clear();
        alone.forEach(f -> emit(FileGroup.of(f.location(), f.size())));
    }

    /** Hands on what is left, as at the end of a listing. */
    @Override
    public void close() {
        endListing();
    }

    private void flush() {
        if (batch.isEmpty()) {
            return;
        }
        List<FileListing.Found> taken = List.copyOf(batch);
        batch.clear();
        if (!options.expandIndex() || taken.stream().noneMatch(GroupedFiles::isIndex)) {
            taken.forEach(f -> place(f, List.of()));
            return;
        }
        // only the indexes go through the window, so that ioThreads of them are read at once
        List<FileListing.Found> indexes = taken.stream().filter(GroupedFiles::isIndex).toList();
        List<List<String>> shards = new ArrayList<>(indexes.size());
        try (OrderedWindow<FileListing.Found, List<String>> reads = new OrderedWindow<>(indexes.iterator(),
                this::shardsOf, f -> false, r -> { }, Math.max(1, options.ioThreads()), "index")) {
            while (reads.hasNext()) {
                shards.add(reads.next());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the indexes the listing found: " + e.getMessage(), e);
        }
        Iterator<List<String>> named = shards.iterator();
        for (FileListing.Found f : taken) {
            place(f, isIndex(f) ? named.next() : List.of());
        }
    }

    /** @param shards the shards an index names, as its reading found them (none for any other file) */
    private void place(FileListing.Found f, List<String> shards) {
        String l = f.location();
        if (recent.contains(l)) {
            return; // handed on already, through another location
        }
        if (!options.expandIndex()) {
            emit(FileGroup.of(l, f.size()));
            return;
        }
        if (isIndex(f)) {
            for (String s : shards) {
                if (waiting.remove(s) == null && !recent.contains(s)) {
                    bounded(claimed, s);
                }
            }
            emit(new FileGroup(l, shards));
            return;
        }
        if (claimed.remove(l)) {
            return; // read under its index
        }
        waiting.put(l, f);
        if (waiting.size() > BOUND) {
            // an index naming it, if any, did not come within the bound: read on its own rather than held
            Iterator<FileListing.Found> oldest = waiting.values().iterator();
            FileListing.Found alone = oldest.next();
            oldest.remove();
            emit(FileGroup.of(alone.location(), alone.size()));
        }
    }

    private void emit(FileGroup g) {
        if (g.index() != null) {
            bounded(recent, g.index());
        }
        g.files().forEach(s -> bounded(recent, s));
        sink.accept(g);
    }

    /** The shards an index names; none when it cannot be read: the task reads it again and reports why. */
    private List<String> shardsOf(FileListing.Found index) {
        try {
            List<String> shards = new ArrayList<>();
            for (Location shard : options.client().locate(Location.parse(index.location())).shards()) {
                shards.add(shard.text());
            }
            return shards;
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    private static boolean isIndex(FileListing.Found f) {
        return f.location().endsWith(Location.INDEX_SUFFIX);
    }

    private static void bounded(Set<String> set, String s) {
        if (set.add(s) && set.size() > BOUND) {
            Iterator<String> oldest = set.iterator();
            oldest.next();
            oldest.remove();
        }
    }
}
