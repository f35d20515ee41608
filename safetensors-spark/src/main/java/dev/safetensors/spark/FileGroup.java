package dev.safetensors.spark;

import java.io.Serializable;
import java.util.List;

/**
 * Files read together by one task: one file, or an index ({@code *.safetensors.index.json}) with its shards, so the
 * task can cross-check the index against the shards' headers.
 *
 * @param index the index's location, or {@code null} for a plain file
 * @param files the locations of the files
 * @param bytes the files' total size as the listing reported it, {@code -1} when unknown
 */
record FileGroup(String index, List<String> files, long bytes) implements Serializable {
    FileGroup {
        files = List.copyOf(files);
    }

    FileGroup(String index, List<String> files) {
        this(index, files, -1);
    }

    static FileGroup of(String file) {
        return new FileGroup(null, List.of(file), -1);
    }

    static FileGroup of(String file, long bytes) {
        return new FileGroup(null, List.of(file), bytes);
    }

    int weight() {
        return Math.max(1, files.size());
    }
}
