package dev.safetensors.http;

import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.net.URI;
import java.util.Optional;

/**
 * What a Hub repository offers for inspection, pinned to one commit, as {@link HubRepository#locate} found it:
 * either a single {@code model.safetensors}, or a sharded checkpoint whose {@code model.safetensors.index.json}
 * bytes are carried here unparsed (the caller parses and cross-checks the index and opens the shards it names with
 * {@link #resolve}).
 *
 * <p>Immutable and thread-safe; {@link #index()} returns a fresh copy each time.
 */
public final class HubCheckpoint {
    private final HubPath file;
    private final byte[] index;
    private final SourceStatistics cost;

    HubCheckpoint(HubPath file, byte[] index, SourceStatistics cost) {
        this.file = file;
        this.index = index;
        this.cost = cost;
    }

    /** @return {@code OWNER/REPO} */
    public String repository() {
        return file.repository();
    }

    /**
     * @return the commit the Hub resolved the revision to ({@code X-Repo-Commit}), or the revision as asked when the
     *         endpoint reported none
     */
    public String commit() {
        return file.revision();
    }

    /** @return whether the repository holds a sharded checkpoint (an index) rather than one file */
    public boolean isSharded() {
        return index != null;
    }

    /** @return the {@code hf://} URI, pinned to {@link #commit()}, of {@code model.safetensors} or of the index */
    public URI file() {
        return file.toUri();
    }

    /** @return the raw bytes of {@code model.safetensors.index.json} when {@linkplain #isSharded() sharded} */
    public Optional<byte[]> index() {
        return index == null ? Optional.empty() : Optional.of(index.clone());
    }

    /**
     * @param path a file of the same repository, such as a shard name read from the index
     * @return its {@code hf://} URI pinned to {@link #commit()}
     * @throws IOException if the path is empty, absolute, has empty, {@code .} or {@code ..} segments, a backslash
     *                     or a control character, so a hostile index cannot point outside the repository
     */
    public URI resolve(String path) throws IOException {
        HubPath.checkSegments(file.toUri(), path);
        return file.file(path).toUri();
    }

    /** @return the requests made and bytes fetched to locate the checkpoint */
    public SourceStatistics cost() {
        return cost;
    }

    @Override
    public String toString() {
        return "HubCheckpoint[" + file.toUri() + (index == null ? "" : ", index of " + index.length + " bytes") + "]";
    }
}
