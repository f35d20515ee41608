package dev.safetensors.core;

import dev.safetensors.SourceStatistics;

import java.util.Optional;

/**
 * One verdict of {@link SafetensorsClient#check}: a file's ({@link ShardVerdict}), or, after all of its files, a
 * checkpoint's as a whole ({@link CheckpointVerdict}).
 */
public sealed interface CheckVerdict permits ShardVerdict, CheckpointVerdict {
    /** @return whether everything this verdict covers passed */
    boolean valid();

    /** @return why it did not pass; empty when {@link #valid()} */
    Optional<java.io.IOException> failure();

    /** @return the requests this verdict took */
    SourceStatistics cost();
}
