package dev.safetensors.core;

import dev.safetensors.Location;

import java.util.List;
import java.util.Objects;

/**
 * What a {@linkplain SafetensorsClient#download download} fetches and how: the include and exclude globs that select
 * the files (huggingface_hub's {@code allow_patterns} and {@code ignore_patterns}, matched against each file name),
 * whether files whose header is invalid are fetched anyway, the bound on how many files one download may name, and
 * who is told of its progress. Immutable and thread-safe when its listener is.
 *
 * <p>With no glob, a file, an index or a repository downloads its checkpoints' files (each index, its shards, each
 * {@code config.json}), and a folder or prefix the files of {@link Selection#CHECKPOINT_FILES} at every level
 * below it. With a glob, a repository, folder or prefix downloads every file below it (every level) whose name an
 * include glob matches ({@link Selection#CHECKPOINT_FILES} when only excludes are given) and no exclude glob does;
 * a file or an index downloads those of its checkpoint's files the globs keep.
 */
public final class DownloadRequest {
    /** The most files one download may name by default: {@value}. */
    public static final int DEFAULT_MAX_FILES = 100_000;
    /** A request with no glob, no force and no listener. */
    public static final DownloadRequest DEFAULT = builder().build();

    private final List<NameGlob> include;
    private final List<NameGlob> exclude;
    private final boolean force;
    private final int maxFiles;
    private final Listener listener;

    /** Told of a download's progress, on the downloading thread. */
    public interface Listener {
        /**
         * @param file the file about to be fetched
         * @param size its size in bytes
         */
        default void starting(Location file, long size) {
        }

        /** @param bytes bytes of the file under way now held (resumed or fetched) since the last call */
        default void fetched(long bytes) {
        }

        /** @param file a file done: fetched, or found in place */
        default void done(DownloadedFile file) {
        }
    }

    private DownloadRequest(Builder b) {
        this.include = List.copyOf(b.include);
        this.exclude = List.copyOf(b.exclude);
        this.force = b.force;
        this.maxFiles = b.maxFiles;
        this.listener = b.listener;
    }

    /** @return a builder of the {@link #DEFAULT} request */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the names to fetch; empty for the default (see the class comment) */
    public List<NameGlob> include() {
        return include;
    }

    /** @return the names never fetched, even when included */
    public List<NameGlob> exclude() {
        return exclude;
    }

    /** @return whether a file is selected by globs rather than by its checkpoint */
    boolean hasGlobs() {
        return !include.isEmpty() || !exclude.isEmpty();
    }

    /** @return the selection a listing is filtered with: every level, the globs or the checkpoint's files */
    Selection selection() {
        return new Selection(include.isEmpty() ? Selection.CHECKPOINT_FILES : include, exclude, true);
    }

    /** @return whether files whose header is invalid are fetched too */
    public boolean force() {
        return force;
    }

    /** @return the most files the download may name; more is refused before anything is fetched */
    public int maxFiles() {
        return maxFiles;
    }

    /** @return who is told of the progress */
    public Listener listener() {
        return listener;
    }

    @Override
    public String toString() {
        return "DownloadRequest{include=" + include + ", exclude=" + exclude + ", force=" + force + ", maxFiles="
                + maxFiles + '}';
    }

    /** Builds a {@link DownloadRequest}. Not thread-safe. */
    public static final class Builder {
        private List<NameGlob> include = List.of();
        private List<NameGlob> exclude = List.of();
        private boolean force;
        private int maxFiles = DEFAULT_MAX_FILES;
        private Listener listener = new Listener() {
        };

        private Builder() {
        }

        /**
         * @param globs the names to fetch (see the class comment); empty for the default
         * @return this builder
         */
        public Builder include(List<NameGlob> globs) {
            include = List.copyOf(globs);
            return this;
        }

        /**
         * @param globs the names never fetched
         * @return this builder
         */
        public Builder exclude(List<NameGlob> globs) {
            exclude = List.copyOf(globs);
            return this;
        }

        /**
         * @param v whether files whose header is invalid are fetched too
         * @return this builder
         */
        public Builder force(boolean v) {
            force = v;
            return this;
        }

        /**
         * @param v the most files the download may name, at least 1
         * @return this builder
         * @throws IllegalArgumentException if less than 1
         */
        public Builder maxFiles(int v) {
            if (v < 1) {
                throw new IllegalArgumentException("maxFiles must be at least 1: " + v);
            }
            maxFiles = v;
            return this;
        }

        /**
         * @param v told of the progress
         * @return this builder
         */
        public Builder listener(Listener v) {
            listener = Objects.requireNonNull(v, "listener");
            return this;
        }

        /** @return the request */
        public DownloadRequest build() {
            return new DownloadRequest(this);
        }
    }
}
