package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SafetensorsFile;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checkpoint a reshard reads: every location the command accepts (a file, an index, an {@code hf://} repository,
 * S3, GCS, HTTPS), expanded by {@link ShardExpander}, every file opened by {@link SourceOpener} and validated, and a
 * sharded checkpoint's index cross-checked against its shards. All reading of the input is here, so the expansion
 * can move to another class without touching the command.
 *
 * <p>The tensors come shard by shard, each shard's in data order, so a split followed by a merge gives back the
 * original order. Metadata is the union of the files' metadata, the first file's value winning for a key they
 * disagree on (shards written by one save carry the same metadata).
 */
final class ReshardInput implements Closeable {
    /**
     * One tensor and where its bytes are.
     *
     * @param info     name, dtype, shape and offsets as the source's header says
     * @param source   the open file that holds it
     * @param position the absolute offset of its first byte in that file
     * @param file     the same file, validated, reading with this run's {@link ReadOptions}
     * @param remote   whether the file is remote
     */
    record Tensor(TensorInfo info, RandomAccessSource source, long position, SafetensorsFile file, boolean remote) {
        /**
         * A local file's range is read directly; a remote file's tensor comes in the remote layer's parallel parts,
         * or for free when it came with the header.
         *
         * @return a new channel over the tensor's bytes; the caller closes it
         * @throws IOException if the range cannot be opened
         */
        ReadableByteChannel open() throws IOException {
            return remote ? FetchedTensorChannel.start(file, info.name(), source.name())
                    : source.openRange(position, info.byteLength());
        }
    }

    private final String name;
    private final List<RandomAccessSource> sources;
    private final List<Tensor> tensors;
    private final Map<String, String> metadata;

    private ReshardInput(String name, List<RandomAccessSource> sources, List<Tensor> tensors,
                         Map<String, String> metadata) {
        this.name = name;
        this.sources = sources;
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
        List<Target> found = new ShardExpander(opener).expand(argument);
        if (found.size() != 1) {
            // a repository with several checkpoints (diffusers components): reshard one at a time
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, Sanitized.line(argument, 400) + " holds "
                    + found.size() + " checkpoints: name one, such as the repository's folder of the component");
        }
        Target target = found.get(0);
        List<Target.File> files;
        Target.Checkpoint checkpoint = null;
        if (target instanceof Target.Checkpoint c) {
            if (c.failure() != null) {
                throw new ExpansionFailure(c.failure());
            }
            checkpoint = c;
            files = c.shards();
        } else {
            files = List.of((Target.File) target);
        }
        List<RandomAccessSource> sources = new ArrayList<>();
        try {
            List<Tensor> tensors = new ArrayList<>();
            Map<String, String> metadata = new LinkedHashMap<>();
            Map<String, SafetensorsHeader> headers = new LinkedHashMap<>();
            for (int i = 0; i < files.size(); i++) {
                Location location = files.get(i).location();
                RandomAccessSource src = opener.open(location);
                sources.add(src);
                // not closed: over a source it does not own, its close() only marks it closed; the source is
                // closed in close()
                SafetensorsFile f = SafetensorsFile.open(src, limits, false, options);
                SafetensorsHeader h = f.header();
                if (checkpoint != null) {
                    headers.put(checkpoint.index().shards().get(i), h);
                }
                h.metadata().forEach(metadata::putIfAbsent);
                List<TensorInfo> inOrder = new ArrayList<>(h.tensors());
                inOrder.sort(Comparator.comparingLong(TensorInfo::begin).thenComparingLong(TensorInfo::end));
                for (TensorInfo t : inOrder) {
                    tensors.add(new Tensor(t, src, h.payloadOffset() + t.begin(), f, !location.isLocal()));
                }
            }
            if (checkpoint != null) {
                checkpoint.index().verifyAgainst(headers);
            }
            String shown = checkpoint != null ? checkpoint.source() : files.get(0).location().text();
            return new ReshardInput(shown, sources, List.copyOf(tensors), metadata);
        } catch (IOException | RuntimeException e) {
            for (RandomAccessSource s : sources) {
                s.close();
            }
            throw e;
        }
    }

    /** @return the checkpoint's name as shown */
    String name() {
        return name;
    }

    /** @return the tensors, shard by shard in data order */
    List<Tensor> tensors() {
        return tensors;
    }

    /** @return the merged metadata */
    Map<String, String> metadata() {
        return metadata;
    }

    /** @return the requests and bytes fetched from every file so far */
    long requests() {
        return sources.stream().mapToLong(s -> s.statistics().requests()).sum();
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (RandomAccessSource s : sources) {
            try {
                s.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** A checkpoint that could not be expanded, already judged by the expander. */
    static final class ExpansionFailure extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient Failure failure;

        ExpansionFailure(Failure failure) {
            super(failure.message(), failure.cause());
            this.failure = failure;
        }

        /** @return the expander's verdict */
        Failure failure() {
            return failure;
        }
    }
}
