package dev.safetensors.core.internal.write;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.function.Predicate;

/**
 * Publishes the objects of one checkpoint under a prefix of a store that has neither rename nor multi-object
 * transactions (S3, GCS, Azure), so that a reader of the prefix sees the old checkpoint whole or no index at all,
 * never an index naming an object of the other generation. The local counterpart, with rename and a journal, is
 * {@code CommitJournal}; this is the same guarantee built from the two atomic operations every store has: an object
 * appears whole when its upload commits, conditionally if asked, and a delete.
 *
 * <h2>Protocol</h2>
 * The objects come in two groups: <b>data</b> (shards, and every file of a mirrored repository that is not an
 * index) and <b>entry points</b> (the index, or the single {@code model.safetensors}: what a loader opens first).
 * <ol>
 *   <li><b>Look.</b> The prefix is listed once. An object in the way (one of the new names, or a name of the layout
 *       being written that the new set does not use) refuses the write with {@link ErrorCode#ALREADY_EXISTS}, naming
 *       it, unless replacing is allowed. Uploads a killed run staged for these names are aborted
 *       ({@link ObjectWriterProvider#abortIncomplete(Location, java.util.function.Predicate)}).</li>
 *   <li><b>Unlink.</b> When replacing and a data object would overwrite an existing one, the indexes this write
 *       owns or replaces are deleted first: an old index never names a shard of the new generation. Another
 *       checkpoint's index under the prefix is left alone.</li>
 *   <li><b>Data.</b> Each data object is uploaded and committed, conditionally (overwriting only an object present
 *       at step 1 when replacing), its store checksum verified by the provider.</li>
 *   <li><b>Publish.</b> The entry points last, the same way: the moment the new index appears, every object it
 *       names is whole.</li>
 *   <li><b>Clean.</b> When replacing, the objects of the earlier layout that the new set does not use are
 *       deleted, an index before the shards it names.</li>
 * </ol>
 * A run stopped at any point (a failure, SIGKILL) leaves the old checkpoint whole (before step 2 deleted anything or
 * when nothing collided), no index (between steps 2 and 4), or the new one whole, perhaps beside leftovers of the
 * old layout (during step 5). A rerun with replacing allowed finishes the job; one without is refused by the
 * leftovers, naming one. Nothing of the tool's own (staging objects, markers) is ever written under the prefix.
 *
 * <p>Each mutation (an upload committed, an object deleted) is reported to a step listener, which tests use to stop
 * the protocol after any of them. Not thread-safe: one publication at a time.
 */
public final class StoreCommit {
    /** Lists a prefix: the registry's {@code list}, so that the listing is the store's own. */
    @FunctionalInterface
    public interface Lister {
        /**
         * @param prefix  a prefix ending in {@code /}
         * @param options how to list
         * @return its listing
         * @throws IOException if it cannot be listed
         */
        Listing list(Location prefix, ListOptions options) throws IOException;
    }

    /** Writes an object's bytes into its upload, in order. */
    @FunctionalInterface
    public interface Content {
        /**
         * @param upload where the bytes go
         * @throws IOException if the bytes cannot be produced or written
         */
        void writeTo(WritableByteChannel upload) throws IOException;
    }

    /**
     * One object to publish.
     *
     * @param name    its path below the prefix, {@code /} between segments
     * @param size    its size in bytes if known, else {@link UploadOptions#UNKNOWN_SIZE}
     * @param content its bytes
     */
    public record Item(String name, long size, Content content) {
        /** Checks the fields. */
        public Item {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(content, "content");
        }
    }

    /**
     * What a publication did.
     *
     * @param written the objects committed, data first and entry points last
     * @param deleted the objects of the earlier layout (and old indexes) deleted
     */
    public record Published(List<WrittenObject> written, List<Location> deleted) {
        /** Copies the lists. */
        public Published {
            written = List.copyOf(written);
            deleted = List.copyOf(deleted);
        }
    }

    private final ObjectWriterProvider writer;
    private final Lister lister;
    private final Location prefix;
    private final UploadOptions uploads;
    private final boolean replace;
    private final Predicate<String> layout;
    private final IntConsumer steps;
    private int step;

    /**
     * @param writer  the store's writer
     * @param lister  lists the store's prefixes
     * @param prefix  the output prefix, ending in {@code /}
     * @param uploads part size and parallelism of every upload (its overwrite flag is decided per object here)
     * @param replace whether existing objects may be replaced and the earlier layout deleted
     * @param layout  the names (below the prefix) the layout being written owns in any of its forms: those are
     *                refused without {@code replace} and deleted with it when the new set does not use them
     * @param steps   told the number of each mutation once it is done (1, 2, ...)
     */
    public StoreCommit(ObjectWriterProvider writer, Lister lister, Location prefix, UploadOptions uploads,
                       boolean replace, Predicate<String> layout, IntConsumer steps) {
        this.writer = Objects.requireNonNull(writer, "writer");
        this.lister = Objects.requireNonNull(lister, "lister");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        if (!prefix.isFolder()) {
            throw new IllegalArgumentException("not a prefix (no trailing '/'): " + prefix.display());
        }
        this.uploads = Objects.requireNonNull(uploads, "uploads");
        this.replace = replace;
        this.layout = Objects.requireNonNull(layout, "layout");
        this.steps = Objects.requireNonNull(steps, "steps");
    }

    /**
     * @param prefix   a prefix ending in {@code /}
     * @param relative a path below it, {@code /} between segments
     * @return the object's location, each segment percent-encoded as stores' listings name them
     */
    public static Location resolve(Location prefix, String relative) {
        StringBuilder text = new StringBuilder(prefix.text());
        String[] segments = relative.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            if (segments[i].isEmpty() || segments[i].equals(".") || segments[i].equals("..")) {
                throw new IllegalArgumentException("not a safe relative path: " + relative);
            }
            text.append(i == 0 ? "" : "/").append(Location.encodeSegment(segments[i]));
        }
        return Location.parse(text.toString());
    }

    /**
     * Runs the protocol (see the class comment).
     *
     * @param data        the data objects, uploaded first, in order
     * @param entryPoints the entry points, uploaded last, in order
     * @return what was written and deleted
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} naming an object in the way when not replacing (nothing
     *                     changed), or the first failure of a listing, an upload or a delete
     */
    public Published publish(List<Item> data, List<Item> entryPoints) throws IOException {
        List<Item> all = new ArrayList<>(data);
        all.addAll(entryPoints);
        Set<String> newNames = new HashSet<>();
        for (Item item : all) {
            newNames.add(resolve(prefix, item.name()).text());
        }
        boolean nested = all.stream().anyMatch(i -> i.name().indexOf('/') >= 0);
        Set<String> present = new LinkedHashSet<>();
        List<Location> layoutPresent = new ArrayList<>();
        List<Location> indexesPresent = new ArrayList<>();
        try (Listing listing = lister.list(prefix, ListOptions.DEFAULT.withRecursive(nested))) {
            while (listing.hasNext()) {
                ListEntry entry = listing.next();
                if (!entry.isFile() || !entry.location().text().startsWith(prefix.text())) {
                    continue;
                }
                present.add(entry.location().text());
                boolean ownedByLayout = ownedByLayout(entry.location());
                if (ownedByLayout) {
                    layoutPresent.add(entry.location());
                }
                // only an index this write owns or replaces is ever unlinked: another checkpoint's stays
                if (entry.location().isIndex() && (ownedByLayout || newNames.contains(entry.location().text()))) {
                    indexesPresent.add(entry.location());
                }
            }
        }
        for (Item item : all) {
            Location at = resolve(prefix, item.name());
            if (!replace && present.contains(at.text())) {
                throw refusal(at, "exists: refusing to replace it");
            }
        }
        List<Location> stale = new ArrayList<>();
        for (Location old : layoutPresent) {
            if (!newNames.contains(old.text())) {
                if (!replace) {
                    throw refusal(old, "belongs to an earlier layout of this checkpoint: refusing to leave it beside"
                            + " the new objects, where a loader may read it instead");
                }
                stale.add(old);
            }
        }
        // a killed run's uploads of these names; another writer's uploads under the prefix are not this write's
        writer.abortIncomplete(prefix, object -> newNames.contains(object.text()) || ownedByLayout(object));
        List<Location> deleted = new ArrayList<>();
        boolean collides = data.stream().anyMatch(i -> present.contains(resolve(prefix, i.name()).text()));
        if (replace && collides) {
            for (Location index : indexesPresent) {
                delete(index);
                deleted.add(index);
                present.remove(index.text());
            }
        }
        List<WrittenObject> written = new ArrayList<>();
        for (Item item : all) {
            written.add(upload(item, present));
        }
        // an old index before the shards it names: it never names a missing one
        stale.sort(java.util.Comparator.comparing(old -> !old.isIndex()));
        for (Location old : stale) {
            if (present.contains(old.text())) {
                delete(old);
                deleted.add(old);
            }
        }
        return new Published(written, deleted);
    }

    /** @return whether an object is directly under the prefix and named as the layout being written names its files */
    private boolean ownedByLayout(Location object) {
        return object.text().indexOf('/', prefix.text().length()) < 0 && layout.test(object.fileName());
    }

    private WrittenObject upload(Item item, Set<String> present) throws IOException {
        Location at = resolve(prefix, item.name());
        UploadOptions options = uploads.withOverwrite(replace && present.contains(at.text()))
                .withSizeHint(item.size());
        WrittenObject written;
        try (ObjectUpload upload = writer.create(at, options)) {
            item.content().writeTo(upload);
            written = upload.commit();
        }
        if (item.size() >= 0 && written.size() != item.size()) {
            throw new StorageException(ErrorCode.WRITE_FAILED, at.display(), "the store holds " + written.size()
                    + " bytes of the " + item.size() + " written");
        }
        steps.accept(++step);
        return written;
    }

    private void delete(Location object) throws IOException {
        writer.delete(object);
        steps.accept(++step);
    }

    private static StorageException refusal(Location at, String why) {
        return new StorageException(ErrorCode.ALREADY_EXISTS, at.display(), why);
    }
}
