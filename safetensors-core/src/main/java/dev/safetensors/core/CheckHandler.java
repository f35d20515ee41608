package dev.safetensors.core;

import dev.safetensors.Location;

/**
 * What {@link SafetensorsClient#check(java.util.Iterator, CheckHandler)} does with each file and each checkpoint,
 * for a caller whose check of a file is more than its header (a digest, a size, rows of a table): the client keeps
 * the order, the bound on concurrency and memory, and the checkpoint rules; the handler examines a file and shapes
 * the results.
 *
 * @param <T> the caller's result type
 */
public interface CheckHandler<T> {
    /**
     * Examines one file; runs on one of the client's reading threads, {@link SafetensorsClient#concurrency()} at
     * most at once.
     *
     * @param file       where the file is
     * @param checkpoint the checkpoint it belongs to: a shard of it when {@link CheckpointFiles#isSharded()}, else
     *                   its single file
     * @return the file's result, reporting every failure; never {@code null}
     */
    T file(Location file, CheckpointFiles checkpoint);

    /**
     * @param result a result of {@link #file}
     * @return what it means for the checkpoint: the validated header when the file passed every check of the
     *         handler, else why it did not; and the requests it took. The checkpoint's rules are judged over these.
     */
    ShardVerdict verdict(T result);

    /**
     * Shapes a checkpoint's verdict; runs on the consumer's thread, after every result of the checkpoint's files
     * was taken.
     *
     * @param verdict the checkpoint's verdict
     * @return its result, or {@code null} for none (a single file that needs no result of its own)
     */
    T checkpoint(CheckpointVerdict verdict);

    /**
     * Releases what a result of {@link #file} holds (an open source) when it will never be taken, because the
     * results were closed first. The default does nothing.
     *
     * @param result the result dropped
     */
    default void discard(T result) {
    }
}
