package dev.safetensors.core;

import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The entries of a folder or prefix that a check reads: listed lazily through a {@link SourceRegistry}, kept when
 * their file name matches an include glob and no exclude glob. Entries that are not regular objects (a FIFO, a
 * dangling link, a folder named like a file) are kept on the same rule, so the caller reports them instead of losing
 * them; plain subfolders and prefixes that match no glob are skipped. An entry that stands for what the listing could
 * not walk or name ({@link #unwalked}: a folder whose reading was refused or failed, a link or loop not followed, a
 * name no request can name) is kept whatever its name, unless an exclude glob matches it: what it hides may be what
 * the globs ask for, so the caller says so. Made by {@link SafetensorsClient#select}, the one selection the command,
 * the Spark source and {@code download} list through; memory stays flat however long the listing (one entry is
 * held), and {@link #cost()} counts its requests. Not thread-safe; {@link #close()} cancels.
 */
public final class PrefixSelection implements AutoCloseable {
    private final Listing listing;
    private final Selection selection;
    private ListEntry pending;
    private long skippedFolders;

    private PrefixSelection(Listing listing, Selection selection) {
        this.listing = listing;
        this.selection = selection;
    }

    /**
     * @param registry lists the prefix
     * @param prefix   the folder or prefix
     * @param options  page size and bounds; the recursion is the selection's
     * @param selection the names to keep and whether to recurse
     * @return the selection, before its first entry
     * @throws IOException if the listing cannot start (see {@link SourceRegistry#list})
     */
    static PrefixSelection open(SourceRegistry registry, Location prefix, ListOptions options, Selection selection)
            throws IOException {
        Objects.requireNonNull(selection, "selection");
        return new PrefixSelection(registry.list(prefix, options.withRecursive(selection.recursive())), selection);
    }

    /**
     * @param location an entry's location
     * @return its last name segment, decoded, without the {@code /} that ends a folder
     */
    public static String name(Location location) {
        String text = location.uri().map(u -> u.getPath() == null ? "" : u.getPath()).orElse(location.text());
        while (text.endsWith("/") || text.endsWith(java.io.File.separator)) {
            text = text.substring(0, text.length() - 1);
        }
        int slash = Math.max(text.lastIndexOf('/'), location.uri().isPresent() ? -1
                : text.lastIndexOf(java.io.File.separatorChar));
        return text.substring(slash + 1);
    }

    /**
     * @param entry an entry of a listing
     * @return whether it stands for something the listing did not walk or cannot name: a folder whose reading was
     *         refused ({@link ListEntry.Kind#DENIED}) or failed ({@link ListEntry.Kind#UNREADABLE}), a link to a
     *         folder or a loop not followed ({@link ListEntry.Kind#FOLDER_LINK}, {@link ListEntry.Kind#LOOP}), a
     *         name no request can name ({@link ListEntry.Kind#INVALID_NAME})
     */
    public static boolean unwalked(ListEntry entry) {
        return switch (entry.kind()) {
            case DENIED, UNREADABLE, FOLDER_LINK, LOOP, INVALID_NAME -> true;
            case FILE, FOLDER, FIFO, DEVICE, DANGLING_LINK -> false;
        };
    }

    /**
     * @return whether another selected entry follows
     * @throws IOException if the listing fails
     */
    public boolean hasNext() throws IOException {
        while (pending == null && listing.hasNext()) {
            ListEntry e = listing.next();
            String name = name(e.location());
            if (unwalked(e) ? !NameGlob.any(selection.exclude(), name) : selection.keeps(name)) {
                pending = e;
            } else if (e.kind() == ListEntry.Kind.FOLDER) {
                skippedFolders++;
            }
        }
        return pending != null;
    }

    /**
     * @return the next selected entry
     * @throws IOException if the listing fails
     * @throws NoSuchElementException if there is none
     */
    public ListEntry next() throws IOException {
        if (!hasNext()) {
            throw new NoSuchElementException("the selection has ended");
        }
        ListEntry e = pending;
        pending = null;
        return e;
    }

    /**
     * @return the subfolders and common prefixes the selection dropped so far: in a one-level listing, those it did
     *         not enter (a recursive walk enters them all the same)
     */
    public long skippedFolders() {
        return skippedFolders;
    }

    /** @return the requests the listing spent so far */
    public SourceStatistics cost() {
        return listing.cost();
    }

    /** Cancels the listing. */
    @Override
    public void close() {
        listing.close();
    }
}
