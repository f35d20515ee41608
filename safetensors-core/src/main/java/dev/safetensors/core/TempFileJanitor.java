package dev.safetensors.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The temporary files being written right now, deleted if the JVM shuts down before they are renamed into place
 * (SIGTERM, SIGINT, {@code System.exit}): a killed write leaves no {@code .tmp} file behind. A file is registered
 * when it is created and released once it was renamed or deleted. Nothing can run on SIGKILL or a crash; the
 * temporary files' names ({@code .NAME.RANDOM.tmp} beside the target) say what they are.
 *
 * <p>Thread-safe.
 */
final class TempFileJanitor {
    private static final System.Logger LOG = System.getLogger(TempFileJanitor.class.getName());
    /** The registry of this JVM, with its shutdown hook. */
    static final TempFileJanitor JVM = new TempFileJanitor(true);

    private final Set<Path> inFlight = ConcurrentHashMap.newKeySet();
    private final boolean hook;
    private boolean hooked;
    private boolean deleting;

    /** @param hook whether to install a shutdown hook on first use (a registry for tests has none) */
    TempFileJanitor(boolean hook) {
        this.hook = hook;
    }

    /** @param temp a temporary file just created */
    void register(Path temp) {
        installHook();
        inFlight.add(temp);
    }

    /** @param temp a temporary file renamed into place or deleted */
    void release(Path temp) {
        inFlight.remove(temp);
    }

    /** @return the files registered and not yet released */
    Set<Path> inFlight() {
        return Set.copyOf(inFlight);
    }

    /**
     * Releases files about to be renamed into place by a commit, all or none: once the shutdown cleanup has begun
     * deleting, none is released, and the commit must not happen (some of its files may be gone already).
     *
     * @param temps the temporary files of one commit
     * @return whether they were released; {@code false} once the JVM is shutting down
     */
    synchronized boolean releaseAll(List<Path> temps) {
        if (deleting) {
            return false;
        }
        temps.forEach(inFlight::remove);
        return true;
    }

    /** Deletes every file still registered: what the shutdown hook runs. */
    synchronized void deleteAll() {
        deleting = true;
        for (Path p : List.copyOf(inFlight)) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not delete " + p + ": " + e);
            }
            inFlight.remove(p);
        }
    }

    private synchronized void installHook() {
        if (hook && !hooked) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(this::deleteAll, "safetensors-temp-cleanup"));
                hooked = true;
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the writer's own failure path still deletes the file
                LOG.log(System.Logger.Level.DEBUG, "no shutdown hook during shutdown: " + e);
            }
        }
    }
}
