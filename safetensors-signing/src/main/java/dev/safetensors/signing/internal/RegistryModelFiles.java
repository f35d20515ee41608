package dev.safetensors.signing.internal;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.signing.ModelFile;
import dev.safetensors.signing.ModelFiles;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A model under a store prefix, listed and read through a {@link SourceRegistry}. Objects are named by their
 * location relative to the prefix; a listed entry that is not a plain object (a folder, a dangling link) is skipped
 * when ignored and refused otherwise, as a local walk would.
 */
public final class RegistryModelFiles implements ModelFiles {
    private final SourceRegistry registry;
    private final Location prefix;
    private final String base;
    private final Map<String, Location> locations = new HashMap<>();

    /**
     * @param registry lists and opens
     * @param prefix   the model's prefix
     */
    public RegistryModelFiles(SourceRegistry registry, Location prefix) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.base = prefix.text().endsWith("/") ? prefix.text() : prefix.text() + "/";
    }

    @Override
    public String name() {
        String trimmed = base.substring(0, base.length() - 1);
        return trimmed.substring(trimmed.lastIndexOf('/') + 1);
    }

    @Override
    public boolean singleFile() {
        return false;
    }

    @Override
    public List<ModelFile> list(boolean allowSymlinks, Predicate<String> ignored) throws IOException {
        List<ModelFile> files = new ArrayList<>();
        Map<String, Location> found = new HashMap<>();
        try (Listing listing = registry.list(prefix, ListOptions.DEFAULT.withRecursive(true))) {
            while (listing.hasNext()) {
                ListEntry entry = listing.next();
                String text = entry.location().text();
                if (!text.startsWith(base)) {
                    throw new StorageException(ErrorCode.INVALID_LISTING, prefix.display(),
                            "the listing named " + entry.location().display() + ", outside the prefix");
                }
                String relative = text.substring(base.length());
                if (relative.isEmpty() || ignoredOrUnder(relative, ignored)) {
                    continue;
                }
                if (!entry.isFile()) {
                    throw new StorageException(ErrorCode.NOT_A_FILE, entry.location().display(),
                            "a " + entry.kind() + " entry cannot be part of a signed model");
                }
                found.put(relative, entry.location());
                files.add(new ModelFile(relative, entry.size()));
            }
        }
        synchronized (locations) {
            locations.putAll(found);
        }
        return files;
    }

    /** A flat listing names no folders, so a path is ignored when it or any folder above it is. */
    private static boolean ignoredOrUnder(String relative, Predicate<String> ignored) {
        for (int slash = relative.indexOf('/'); slash >= 0; slash = relative.indexOf('/', slash + 1)) {
            if (ignored.test(relative.substring(0, slash))) {
                return true;
            }
        }
        return ignored.test(relative);
    }

    @Override
    public RandomAccessSource open(ModelFile file) throws IOException {
        Location location;
        synchronized (locations) {
            location = locations.get(file.path());
        }
        if (location == null) {
            throw new IllegalArgumentException(file.path() + " is not a file this model listed");
        }
        return registry.open(location);
    }

    @Override
    public String toString() {
        return prefix.display();
    }
}
