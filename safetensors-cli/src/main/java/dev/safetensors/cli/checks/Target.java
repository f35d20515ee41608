package dev.safetensors.cli.checks;

import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.CheckpointFiles;

import java.util.List;
import java.util.Map;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;

/** One SOURCE argument after expansion: a single file, or a sharded checkpoint and its shards. */
public sealed interface Target {

    /**
     * The spelling two mentions of one file share, to tell that a listing, a list or a manifest names a file again:
     * the absolute normalized path locally ({@code ./models/a.safetensors} and {@code models/a.safetensors} are
     * one), else the location as displayed.
     *
     * @param location where a file is
     * @return its key
     */
    static String key(Location location) {
        if (location.isLocal()) {
            try {
                return location.path().toAbsolutePath().normalize().toString();
            } catch (RuntimeException e) {
                // not a path this platform can spell: compared as written
            }
        }
        return location.display();
    }

    /**
     * A file to examine on its own or as a shard.
     *
     * @param location   where it is
     * @param kind       {@link SourceResult.Kind#FILE} or {@link SourceResult.Kind#SHARD}
     * @param checkpoint for a shard, the checkpoint's name; otherwise {@code null}
     * @param extraCost  requests already spent to find it (a Hub lookup), counted in its result
     */
    record File(Location location, SourceResult.Kind kind, String checkpoint, SourceStatistics extraCost)
            implements Target {

        /**
         * @param location where it is
         * @return a file given as a source, found at no cost
         */
        public static File of(Location location) {
            return new File(location, SourceResult.Kind.FILE, null, SourceStatistics.NONE);
        }
    }

    /**
     * A sharded checkpoint: its parsed index and its shards, or why it could not be expanded.
     *
     * @param source     the checkpoint's name as shown: the index location, or the Hub repository as typed
     * @param files      the located checkpoint (its parsed index), or {@code null} when {@code failure} is set
     * @param shards     the shards, in the order the index first names them
     * @param cost       requests spent reading the index (and locating it on the Hub)
     * @param attributes repository and revision, where known
     * @param failure    why the checkpoint could not be expanded, or {@code null}
     */
    record Checkpoint(String source, CheckpointFiles files, List<File> shards, SourceStatistics cost,
                      Map<String, String> attributes, Failure failure) implements Target {

        /**
         * @param source  the checkpoint's name
         * @param failure why it could not be expanded
         * @param cost    what trying cost
         * @return a checkpoint with no shards
         */
        static Checkpoint failed(String source, Failure failure, SourceStatistics cost) {
            return new Checkpoint(source, null, List.of(), cost, Map.of(), failure);
        }
    }
}
