package dev.safetensors.examples;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.FileDownload;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.core.Sources;
import dev.safetensors.http.HttpSettings;
import dev.safetensors.http.HttpSourceProvider;
import dev.safetensors.http.HubBlobLock;
import dev.safetensors.http.HubCache;
import dev.safetensors.http.HubFileMetadata;
import dev.safetensors.http.HubRepository;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Downloads every file of a checkpoint, validated, verified and resumable, to a folder or into the Hugging Face cache.
 *
 * <pre>
 * java ... dev.safetensors.examples.DownloadCheckpoint                                  the sample, to a new folder
 * java ... dev.safetensors.examples.DownloadCheckpoint LOCATION DIR                     any file, index or repository
 * java ... dev.safetensors.examples.DownloadCheckpoint hf://NAMESPACE/REPO --cache      into huggingface_hub's cache
 * </pre>
 *
 * <p>To a folder, each file goes through {@link FileDownload}: its header is validated before any payload byte, the
 * bytes come in parallel parts to {@code .NAME.incomplete} (continued if an earlier run was interrupted, only while
 * the object is the version recorded beside it) and the file is renamed into place once whole. Into the cache, each Hub file costs one {@code HEAD}
 * ({@link HubRepository#metadata}), its blob is verified against the Hub's SHA-256 and linked into
 * {@code snapshots/COMMIT/} as {@code huggingface_hub} links it; reading it afterwards at that commit makes no request.
 */
public final class DownloadCheckpoint {
    private DownloadCheckpoint() {
    }

    /**
     * @param args a location and a folder (or {@code --cache}); the sample sharded checkpoint and a new temporary
     *             folder by default
     * @throws IOException if a header is invalid, a request fails, a digest does not match or a write fails
     */
    public static void main(String[] args) throws IOException {
        String location = SampleData.shardedArgument(args, 0);
        if (args.length > 1 && args[1].equals("--cache")) {
            toCache(location, HubCache.fromEnvironment());
            return;
        }
        Path out = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("download-");
        for (CheckpointFiles checkpoint : CheckpointFiles.locateAll(location)) {
            List<Location> files = new ArrayList<>(checkpoint.shards());
            files.add(0, checkpoint.file());
            for (Location file : files) {
                try (RandomAccessSource source = Sources.open(file.text())) {
                    Path target = out.resolve(file.fileName());
                    FileDownload.Result r = FileDownload.builder(source, s -> FileDownload.Placement.beside(target))
                            .build().run();
                    System.out.println(r.target() + ": " + r.size() + " bytes, sha256 " + r.sha256().orElse("-")
                            + ", " + r.cost().requests() + " requests");
                }
            }
        }
    }

    /** The steps {@code safetensors download --cache} takes for each Hub file, the blob locked from fetch to link. */
    private static void toCache(String location, HubCache cache) throws IOException {
        HttpSettings settings = HttpSettings.fromEnvironment();
        HubRepository hub = new HubRepository(settings);
        try (HttpSourceProvider provider = new HttpSourceProvider(settings, cache);
             SourceRegistry registry = SourceRegistry.builder().provider(provider).build()) {
            SafetensorsClient options = SafetensorsClient.builder().registry(registry).build();
            for (CheckpointFiles checkpoint : CheckpointFiles.locateAll(location, options)) {
                List<Location> files = new ArrayList<>(checkpoint.shards());
                files.add(0, checkpoint.file());
                for (Location file : files) {
                    URI uri = file.uri().orElseThrow();
                    HubFileMetadata meta = hub.metadata(file);
                    Path blob = cache.blob(uri, meta.etag());
                    try (RandomAccessSource source = provider.open(file);
                         HubBlobLock lock = cache.lockBlob(uri, meta.etag())) {
                        if (file.fileName().endsWith(Location.FILE_SUFFIX)) {
                            Safetensors.readHeader(source, Limits.STRICT);
                        }
                        FileDownload.builder(source, s -> new FileDownload.Placement(blob,
                                blob.resolveSibling(blob.getFileName() + ".incomplete"), meta.sha256()))
                                .headerChecked(true).build().run();
                        System.out.println(cache.link(uri, meta.commit(), meta.etag()));
                    }
                    cache.recordRef(URI.create(location), meta.commit());
                }
            }
        }
    }
}
