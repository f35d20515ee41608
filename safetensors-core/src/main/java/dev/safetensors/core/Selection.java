package dev.safetensors.core;

import java.util.List;
import java.util.Objects;

/**
 * Which entries of a folder, prefix or repository a {@linkplain SafetensorsClient#select selection} keeps: those whose
 * file name (the last segment, never the folders above it) matches an include glob and no exclude glob, one level
 * below the location or, {@code recursive}, every level. The command's {@code --include}/{@code --exclude} and
 * {@code --recursive}, the Spark source's {@code pathGlobFilter} and {@code download}'s file selection are this
 * request. Immutable and thread-safe.
 *
 * @param include   the names to keep; at least one
 * @param exclude   the names to drop, even when included
 * @param recursive whether subfolders and sub-prefixes are walked too
 */
public record Selection(List<NameGlob> include, List<NameGlob> exclude, boolean recursive) {
    /** The files a checkpoint is made of: its shards, its index, its {@code config.json}. */
    public static final List<NameGlob> CHECKPOINT_FILES = List.of(NameGlob.compile(NameGlob.DEFAULT_INCLUDE),
            NameGlob.compile(NameGlob.DEFAULT_INDEX_INCLUDE), NameGlob.compile("config.json"));

    /**
     * Copies the lists.
     *
     * @param include   the names to keep; at least one
     * @param exclude   the names to drop, even when included
     * @param recursive whether subfolders and sub-prefixes are walked too
     * @throws IllegalArgumentException if {@code include} is empty
     */
    public Selection {
        include = List.copyOf(Objects.requireNonNull(include, "include"));
        exclude = List.copyOf(Objects.requireNonNull(exclude, "exclude"));
        if (include.isEmpty()) {
            throw new IllegalArgumentException("at least one include glob is needed");
        }
    }

    /**
     * @param name a file name
     * @return whether an include glob matches it and no exclude glob does
     */
    public boolean keeps(String name) {
        return NameGlob.any(include, name) && !NameGlob.any(exclude, name);
    }
}
