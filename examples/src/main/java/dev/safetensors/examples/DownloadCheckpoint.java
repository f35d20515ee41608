package dev.safetensors.examples;

import dev.safetensors.Location;
import dev.safetensors.core.DownloadRequest;
import dev.safetensors.core.DownloadResult;
import dev.safetensors.core.DownloadedFile;
import dev.safetensors.core.NameGlob;
import dev.safetensors.core.SafetensorsClient;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Downloads the files of a checkpoint, a repository, a folder or a prefix, validated, verified and resumable, to a
 * folder, through the library's download service ({@link SafetensorsClient#download}, the one
 * {@code safetensors download} runs).
 *
 * <pre>
 * java ... dev.safetensors.examples.DownloadCheckpoint                              the sample, to a new folder
 * java ... dev.safetensors.examples.DownloadCheckpoint LOCATION DIR                 any file, index, repository, prefix
 * java ... dev.safetensors.examples.DownloadCheckpoint hf://NS/REPO DIR '*.json'    only the files the globs select
 * </pre>
 *
 * <p>Every {@code .safetensors} header is validated before any payload byte; the bytes come in parallel parts to
 * {@code .NAME.incomplete} (continued if an earlier run was interrupted, only while the object is the version
 * recorded beside it), are checked against the SHA-256 the store publishes (the Hub's, for LFS files), and the file
 * is renamed into place once whole. Into the Hugging Face cache, use {@code safetensors download --cache}.
 */
public final class DownloadCheckpoint {
    private DownloadCheckpoint() {
    }

    /**
     * @param args a location, a folder and include globs; the sample sharded checkpoint and a new temporary folder by
     *             default
     * @throws IOException if a header is invalid, a request fails, a digest does not match or a write fails
     */
    public static void main(String[] args) throws IOException {
        Location location = Location.parse(SampleData.shardedArgument(args, 0));
        Path out = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("download-");
        List<NameGlob> include = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            include.add(NameGlob.compile(args[i]));
        }
        DownloadRequest request = DownloadRequest.builder().include(include).listener(new DownloadRequest.Listener() {
            @Override
            public void done(DownloadedFile f) {
                System.out.println(f.path() + ": " + f.download().map(r -> r.size() + " bytes, sha256 "
                        + r.sha256().orElse("-")).orElse("present") + ", " + f.cost().requests() + " requests");
            }
        }).build();
        DownloadResult result = SafetensorsClient.defaultClient().download(location, out, request);
        System.err.println(result.files().size() + " files, " + result.cost().requests() + " requests");
    }
}
