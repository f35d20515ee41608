package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.ReadOptions;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.Sanitized;

/**
 * The checkpoint a reshard reads: every location the command accepts (a file, an index, an {@code hf://} repository,
 * S3, GCS, HTTPS), opened by the library's {@link Checkpoint} through this run's registry, so it is validated and
 * cross-checked there, each shard's header read once.
 *
 * <p>The tensors come shard by shard, each shard's in data order, so a split followed by a merge gives back the
 * original order. Metadata is what every file agrees on: an entry missing from one file, or with different values,
 * is left out, so an output shard's header is never larger than the input shards' headers were (shards written by
 * one save carry the same metadata, and keep all of it).
 */
final class ReshardInput implements Closeable {
    /**
     * One tensor and the checkpoint that holds it.
     *
     * @param info       name, dtype, shape and offsets as its shard's header says
     * @param checkpoint the open checkpoint
     * @param remote     whether its shard is remote
     */
    record Tensor(TensorInfo info, Checkpoint checkpoint, boolean remote) {
        /**
         * A local shard's range is read directly; a remote shard's tensor comes in the remote layer's parallel
         * parts.
         *
         * @return a new channel over the tensor's bytes; the caller closes it
         * @throws IOException if the range cannot be opened
         */
        ReadableByteChannel open() throws IOException {
            return remote ? FetchedTensorChannel.start(checkpoint.file(info.name()), info.name(),
                    checkpoint.shardOf(info.name()).display()) : checkpoint.file(info.name()).openTensor(info.name());
        }
    }

    private final String name;
    private final Checkpoint checkpoint;
    private final List<Tensor> tensors;
    private final Map<String, String> metadata;

    private ReshardInput(String name, Checkpoint checkpoint, List<Tensor> tensors, Map<String, String> metadata) {
        this.name = name;
        this.checkpoint = checkpoint;
        this.tensors = tensors;
        this.metadata = metadata;
    }

    /**
     * @param argument what the user typed
     * @param opener   this run's opener
     * @param limits   the policy every input file must pass
     * @param options  how remote tensors are fetched
     * @return the opened, validated checkpoint; close it when done
     * @throws IOException with the failure of the first file or index that cannot be read or is invalid
     */
    static ReshardInput open(String argument, SourceOpener opener, Limits limits, ReadOptions options)
            throws IOException {
        Location location = Location.parse(argument);
        SourceOpener.checkNamesSomething(location);
        SafetensorsClient checkpointOptions = opener.options(location, limits, options);
        List<CheckpointFiles> found = checkpointOptions.locateAll(location);
        if (found.size() != 1) {
            // a repository with several checkpoints (diffusers components): reshard one at a time
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, Sanitized.line(argument, 400) + " holds "
                    + found.size() + " checkpoints: name one, such as the repository's folder of the component");
        }
        Checkpoint checkpoint = checkpointOptions.openCheckpoint(found.get(0));
        List<Tensor> tensors = new ArrayList<>();
        Map<String, String> metadata = null;
        for (int i = 0; i < checkpoint.headers().size(); i++) {
            SafetensorsHeader h = checkpoint.headers().get(i);
            boolean remote = !checkpoint.files().shards().get(i).isLocal();
            if (metadata == null) {
                metadata = new LinkedHashMap<>(h.metadata());
            } else {
                metadata.entrySet().removeIf(e -> !e.getValue().equals(h.metadata().get(e.getKey())));
            }
            List<TensorInfo> inOrder = new ArrayList<>(h.tensors());
            inOrder.sort(Comparator.comparingLong(TensorInfo::begin).thenComparingLong(TensorInfo::end));
            for (TensorInfo t : inOrder) {
                tensors.add(new Tensor(t, checkpoint, remote));
            }
        }
        return new ReshardInput(location.display(), checkpoint, List.copyOf(tensors),
                metadata == null ? Map.of() : metadata);
    }

    /** @return the checkpoint's name as shown */
    String name() {
        return name;
    }

    /** @return the tensors, shard by shard in data order */
    List<Tensor> tensors() {
        return tensors;
    }

    /** @return the metadata every input file agrees on */
    Map<String, String> metadata() {
        return metadata;
    }

    /** @return the requests made so far: locating, the index, every header, every tensor read */
    long requests() {
        return checkpoint.statistics().requests();
    }

    @Override
    public void close() throws IOException {
        checkpoint.close();
    }
}
