package dev.safetensors;

import java.io.IOException;
import java.util.Optional;

/**
 * Opens {@link RandomAccessSource}s for the {@link Location}s of one storage system. Providers are found with
 * {@link java.util.ServiceLoader}: a backend module declares {@code provides dev.safetensors.RandomAccessSourceProvider
 * with ...} in its {@code module-info} and lists the class in {@code META-INF/services} for class path users.
 *
 * <p>{@link Location} is the only location type of this interface: a provider reads what it needs from it
 * ({@link Location#uri()}, {@link Location#text()} to open) and names it in every message by
 * {@link Location#display()}, never by its text, which may hold secrets.
 *
 * <p>Implementations are stateless or thread-safe, and have a public no-argument constructor.
 */
public interface RandomAccessSourceProvider {

    /**
     * @param location a source location such as {@code file:///m.safetensors} or {@code s3://bucket/key}
     * @return whether this provider opens it (usually a test of the scheme)
     */
    boolean supports(Location location);

    /**
     * Opens the object. A provider may defer all requests until the first read.
     *
     * @param location a location this provider {@linkplain #supports supports}
     * @return an open source; the caller closes it
     * @throws IOException if the location is malformed for this provider or the object cannot be opened
     */
    RandomAccessSource open(Location location) throws IOException;

    /**
     * Lists the checkpoints a repository location holds, for storage that has repositories (the Hugging Face Hub's
     * {@code hf://NAMESPACE/REPO[@REVISION][/FOLDER]}). The default, for storage of plain objects, is empty: the
     * location is then a file or an index to open as such.
     *
     * @param location a location this provider {@linkplain #supports supports}
     * @return the listing, or empty when {@code location} is not a repository location for this provider
     * @throws IOException if the location is malformed or the listing cannot be obtained
     */
    default Optional<RepositoryListing> listCheckpoints(Location location) throws IOException {
        return Optional.empty();
    }

    /**
     * The location of a file named by another file of this provider, such as a shard named by an index: by default
     * {@link Location#sibling(String)} (beside it, the name percent-encoded). A provider whose locations can name a
     * moving revision overrides this to pin the sibling to the revision {@code identity} was read at (the Hub pins
     * {@code hf://ns/repo/...} to {@code hf://ns/repo@COMMIT/...}), so a branch that moves meanwhile cannot mix two
     * commits.
     *
     * @param file     a location this provider {@linkplain #supports supports}, read with identity {@code identity}
     * @param name     a plain file name (no {@code /})
     * @param identity what the source of {@code file} reported ({@link RandomAccessSource#identity()})
     * @return the sibling's location
     * @throws IllegalArgumentException if the name is not a plain file name
     */
    default Location sibling(Location file, String name, SourceIdentity identity) {
        return file.sibling(name);
    }

    /**
     * Lists a folder or a prefix, lazily and page by page (see {@link Listing}). The default, for storage with no
     * listing call (plain {@code http(s)} URLs), fails with {@link ErrorCode#NOT_LISTABLE}.
     *
     * @param prefix  a location this provider {@linkplain #supports supports}, naming a folder or prefix; a prefix
     *                not ending in {@code /} is listed as if it did
     * @param options recursion, page size and bounds
     * @return the listing; the caller closes it
     * @throws IOException an {@link InvalidLocationException} with {@link ErrorCode#NOT_LISTABLE} by default; a
     *                     coded failure if the location is malformed or the first page cannot be requested
     */
    default Listing list(Location prefix, ListOptions options) throws IOException {
        throw new InvalidLocationException(ErrorCode.NOT_LISTABLE, prefix.display() + ": this storage cannot be"
                + " listed; name each file, or give them with --from-file");
    }
}
