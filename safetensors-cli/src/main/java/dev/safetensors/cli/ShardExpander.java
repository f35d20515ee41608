package dev.safetensors.cli;

import dev.safetensors.SourceStatistics;
import dev.safetensors.core.CheckpointFiles;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns SOURCE arguments into {@link Target}s, finding checkpoints as the library's {@link CheckpointFiles} does (the
 * one place that reads indexes and lists repositories): a {@code *.safetensors.index.json} (local or remote) is read
 * and parsed strictly, and its shards are named beside it; a Hub repository
 * {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION][/FOLDER]} is listed with one request, and each checkpoint
 * it holds (the root's, and each diffusers component's) becomes a target, pinned to the commit the revision resolved
 * to. Anything else is a single file. A checkpoint that cannot be expanded becomes a failed
 * {@link Target.Checkpoint}, so it is reported like any other source.
 */
final class ShardExpander {
    private final SourceOpener opener;

    /** @param opener opens index files and lists repositories */
    ShardExpander(SourceOpener opener) {
        this.opener = opener;
    }

    /**
     * @param argument what the user typed
     * @return the targets it names: one for a file or an index, one per checkpoint of a repository
     */
    List<Target> expand(String argument) {
        Location location = Location.parse(argument);
        if (!location.isIndex() && !location.isHubRepository()) {
            return List.of(Target.File.of(location));
        }
        try {
            List<CheckpointFiles> all = location.isHubRepository()
                    ? CheckpointFiles.locateAll(argument, opener.asProvider())
                    : List.of(CheckpointFiles.locate(argument, null, opener.asProvider()));
            List<Target> targets = new ArrayList<>();
            for (CheckpointFiles files : all) {
                targets.add(target(all.size() == 1 ? location.text() : named(location.text(), files.folder()), files));
            }
            return targets;
        } catch (IOException | RuntimeException e) {
            return List.of(Target.Checkpoint.failed(location.text(), Failure.from(e, location.text()),
                    SourceStatistics.NONE));
        }
    }

    private static Target target(String name, CheckpointFiles files) {
        if (!files.isSharded()) {
            return new Target.File(Location.parse(files.file()), SourceResult.Kind.FILE, null, files.cost());
        }
        List<Target.File> shards = new ArrayList<>();
        for (String shard : files.shards()) {
            shards.add(new Target.File(Location.parse(shard), SourceResult.Kind.SHARD, name, SourceStatistics.NONE));
        }
        return new Target.Checkpoint(name, files.index().orElseThrow(), shards, files.cost(), files.attributes(),
                null);
    }

    /** A component of a repository is named as its folder location, which names it alone when typed back. */
    private static String named(String repository, String folder) {
        if (folder.isEmpty()) {
            return repository;
        }
        return (repository.endsWith("/") ? repository : repository + "/") + folder;
    }
}
