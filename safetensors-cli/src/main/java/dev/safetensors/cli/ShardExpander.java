package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.ShardIndex;
import dev.safetensors.http.HttpSettings;
import dev.safetensors.http.HubCheckpoint;
import dev.safetensors.http.HubRepository;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns SOURCE arguments into {@link Target}s. A {@code *.safetensors.index.json} (local or remote) is read and
 * parsed strictly with {@link ShardIndex}, and its shards are named beside it; a Hub repository
 * {@code hf://OWNER/REPO[@REVISION]} is located with {@link HubRepository}: its {@code model.safetensors}, or its
 * index and shards pinned to the commit the revision resolved to. Anything else is a single file. A checkpoint that
 * cannot be expanded becomes a failed {@link Target.Checkpoint}, so it is reported like any other source.
 */
final class ShardExpander {
    private final SourceOpener opener;
    private HubRepository hub;

    /** @param opener opens index files */
    ShardExpander(SourceOpener opener) {
        this.opener = opener;
    }

    /**
     * @param argument what the user typed
     * @return the target it names
     */
    Target expand(String argument) {
        Location location = Location.parse(argument);
        if (location.isHubRepository()) {
            return expandHub(location);
        }
        if (location.isIndex()) {
            return expandIndex(location);
        }
        return Target.File.of(location);
    }

    private Target expandIndex(Location location) {
        SourceStatistics cost = SourceStatistics.NONE;
        try (RandomAccessSource source = opener.open(location)) {
            try {
                ShardIndex index = ShardIndex.read(source);
                Map<String, String> attributes = identity(source.attributes());
                String revision = attributes.get("revision");
                List<Target.File> shards = new ArrayList<>();
                for (String shard : index.shards()) {
                    shards.add(new Target.File(location.sibling(shard, revision), SourceResult.Kind.SHARD,
                            location.text(), SourceStatistics.NONE));
                }
                return new Target.Checkpoint(location.text(), index, shards, source.statistics(), attributes, null);
            } finally {
                cost = source.statistics();
            }
        } catch (IOException | RuntimeException e) {
            return Target.Checkpoint.failed(location.text(), Failure.from(e, location.text()), cost);
        }
    }

    private Target expandHub(Location location) {
        try {
            HubCheckpoint found = hub().locate(location.uri());
            if (!found.isSharded()) {
                return new Target.File(Location.parse(found.file().toString()), SourceResult.Kind.FILE, null,
                        found.cost());
            }
            String indexName = found.file().toString();
            ShardIndex index = ShardIndex.parse(indexName, found.index().orElseThrow());
            List<Target.File> shards = new ArrayList<>();
            for (String shard : index.shards()) {
                shards.add(new Target.File(Location.parse(found.resolve(shard).toString()), SourceResult.Kind.SHARD,
                        location.text(), SourceStatistics.NONE));
            }
            Map<String, String> attributes = new LinkedHashMap<>();
            attributes.put("repository", found.repository());
            attributes.put("revision", found.commit());
            return new Target.Checkpoint(location.text(), index, shards, found.cost(), attributes, null);
        } catch (IOException | RuntimeException e) {
            return Target.Checkpoint.failed(location.text(), Failure.from(e, location.text()),
                    SourceStatistics.NONE);
        }
    }

    private synchronized HubRepository hub() throws IOException {
        if (hub == null) {
            try {
                hub = new HubRepository(HttpSettings.fromEnvironment());
            } catch (IllegalArgumentException e) {
                throw new InvalidLocationException(ErrorCode.INVALID_ENDPOINT, "HF_ENDPOINT: " + e.getMessage());
            }
        }
        return hub;
    }

    private static Map<String, String> identity(Map<String, String> attributes) {
        Map<String, String> kept = new LinkedHashMap<>();
        for (String key : new String[] {"repository", "revision"}) {
            if (attributes.containsKey(key)) {
                kept.put(key, attributes.get(key));
            }
        }
        return kept;
    }
}
