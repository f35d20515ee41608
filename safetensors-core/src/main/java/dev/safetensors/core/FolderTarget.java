package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;

import java.nio.file.Path;
import java.util.Objects;

/** {@link DownloadTarget#folder}: each file under a local folder, by its relative path. */
final class FolderTarget implements DownloadTarget {
    private final Path root;

    FolderTarget(Path root) {
        this.root = Objects.requireNonNull(root, "root");
    }

    @Override
    public Slot slot(Location file, String relative) {
        Path target = root.resolve(relative);
        return new Slot() {
            @Override
            public FileDownload.Placement place(RandomAccessSource source) {
                return FileDownload.Placement.beside(target).expecting(FileDownload.publishedSha256(source));
            }

            @Override
            public Path publish(Path placed) {
                return placed;
            }
        };
    }

    @Override
    public String toString() {
        return "folder " + root;
    }
}
