package dev.safetensors.cli.checks;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.ReadOptions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;

/**
 * Turns SOURCE arguments into {@link Target}s through the library's {@link CheckpointFiles} (the one place that reads
 * indexes and lists repositories), with this run's registry and limits: a {@code *.safetensors.index.json} (local or
 * remote) becomes its shards; a Hub repository {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION][/FOLDER]}
 * becomes each checkpoint it holds, pinned to the commit the revision resolved to. Anything else is a single file. A
 * checkpoint that cannot be expanded becomes a failed {@link Target.Checkpoint}, so it is reported like any other
 * source. For {@code manifest} and {@code verify}, which record and compare every file a checkpoint consists of, the
 * index file itself follows its checkpoint as a file of its own.
 */
final class ShardExpander {
    private final SourceOpener opener;
    private final Limits limits;
    private final boolean indexFiles;

    /**
     * @param opener opens index files and lists repositories
     * @param limits the bounds on indexes and listings
     */
    ShardExpander(SourceOpener opener, Limits limits) {
        this(opener, limits, false);
    }

    /**
     * @param opener     opens index files and lists repositories
     * @param limits     the bounds on indexes and listings
     * @param indexFiles whether each sharded checkpoint's index file follows it as a {@link Target.File}
     */
    ShardExpander(SourceOpener opener, Limits limits, boolean indexFiles) {
        this.opener = opener;
        this.limits = limits;
        this.indexFiles = indexFiles;
    }

    /**
     * @param argument what the user typed
     * @return the targets it names: one for a file or an index, one per checkpoint of a repository (each followed by
     *         its index file when asked)
     */
    List<Target> expand(String argument) {
        Location location = Location.parse(argument);
        if (!location.isIndex() && !HubLocation.isRepository(location)) {
            return List.of(Target.File.of(location));
        }
        try {
            SourceOpener.checkNamesSomething(location);
            List<CheckpointFiles> all = opener.options(location, limits, ReadOptions.DEFAULT)
                    .locateAll(location);
            List<Target> targets = new ArrayList<>();
            for (CheckpointFiles files : all) {
                targets.add(target(all.size() == 1 ? location.display() : named(location.display(), files.folder()),
                        files));
                if (indexFiles && files.isSharded()) {
                    targets.add(Target.File.of(files.file()));
                }
            }
            return targets;
        } catch (IOException | RuntimeException e) {
            return List.of(Target.Checkpoint.failed(location.display(), Failure.from(e, location.display()),
                    SourceStatistics.NONE));
        }
    }

    /**
     * @param name  the checkpoint's name as shown
     * @param files the located checkpoint
     * @return its target: its single file, or its shards
     */
    static Target target(String name, CheckpointFiles files) {
        if (!files.isSharded()) {
            return new Target.File(files.file(), SourceResult.Kind.FILE, null, files.cost());
        }
        List<Target.File> shards = new ArrayList<>();
        for (Location shard : files.shards()) {
            shards.add(new Target.File(shard, SourceResult.Kind.SHARD, name, SourceStatistics.NONE));
        }
        return new Target.Checkpoint(name, files, shards, files.cost(), files.attributes(),
                null);
    }

    /** A component of a repository is named as its folder location, which names it alone when typed back. */
    static String named(String repository, String folder) {
        if (folder.isEmpty()) {
            return repository;
        }
        return (repository.endsWith("/") ? repository : repository + "/") + folder;
    }
}
