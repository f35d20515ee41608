package dev.safetensors.spark;

import dev.safetensors.SafetensorsHeader;

import java.io.IOException;
import java.util.Map;

/**
 * Where a write job's committed files end up, as its job commit sees it: a local folder ({@link Staging}: renames
 * out of the attempts' folders, final names chosen at job commit) or a store prefix ({@link StoreOutput}: objects
 * the tasks already uploaded under their final names, as a store has no rename).
 */
interface JobOutput {
    /** @return where a committed task's file is now: a path in its attempt folder, or its object's location */
    String where(TaskFiles task, WrittenFile file);

    /** @return whether committed files keep the names they were written under (a store's objects) */
    boolean keepsNames();

    /** @return the header of a committed file, {@code where} as {@link #where} gave it */
    SafetensorsHeader header(String where) throws IOException;

    /**
     * Publishes the job: the committed files under their final names, then the file that marks the output
     * complete (the index or manifest), then what the output held before (overwrite) goes.
     *
     * @param files    final name to where the file is now ({@link #where}), in order
     * @param lastName the final name of the last file, or null
     * @param last     its bytes, or null
     */
    void publish(Map<String, String> files, String lastName, byte[] last) throws IOException;

    /** Leaves nothing of the job. */
    void abort() throws IOException;

    /** @return the output, for messages */
    String display();
}
