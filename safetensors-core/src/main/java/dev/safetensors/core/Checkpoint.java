package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One logical checkpoint: a single file, a sharded checkpoint behind its {@code *.safetensors.index.json} (local or
 * remote), or a checkpoint of a repository ({@code hf://acme/model}), seen as one set of tensors.
 *
 * <p>{@link #open} finds the files ({@link CheckpointFiles}), reads and validates every shard's header, and
 * cross-checks them against the index as {@link ShardIndex#verifyAgainst} does: every tensor in exactly the shard
 * the index maps it to, {@code total_size} equal to the bytes held. A checkpoint that opens is consistent.
 *
 * <p>Tensors are read through the shard that holds them: {@link #file(String)} gives that shard's
 * {@link SafetensorsFile}, so every method of it is available; {@link #readBytes}, {@link #readFloat32} and
 * {@link #copyTensorTo} are shortcuts. A shard's {@code SafetensorsFile} is opened on first use and once, however
 * many threads ask; opening it reads its header again (one request for a remote shard) and checks that it is the
 * header seen by {@link #open}, so a shard replaced meanwhile is a {@link SourceChangedException}, not a silent mix.
 * A single-file checkpoint keeps the file {@link #open} validated, at no further cost.
 *
 * <p>Thread-safe. {@link #close()} closes every shard opened; reads after it fail with an {@link IOException}.
 */
public final class Checkpoint implements AutoCloseable {
    private final CheckpointFiles files;
    private final Limits limits;
    private final List<SafetensorsHeader> headers;
    private final Map<String, Integer> shardOf;
    private final List<TensorInfo> tensors;
    private final AtomicReferenceArray<SafetensorsFile> opened;
    /** The source under each opened shard, for its request count. */
    private final AtomicReferenceArray<RandomAccessSource> sources;
    private final SourceStatistics openCost;
    private volatile boolean closed;

    private Checkpoint(CheckpointFiles files, Limits limits, List<SafetensorsHeader> headers,
                       RandomAccessSource singleSource, SafetensorsFile single, SourceStatistics openCost) {
        this.files = files;
        this.limits = limits;
        this.headers = List.copyOf(headers);
        this.opened = new AtomicReferenceArray<>(headers.size());
        this.sources = new AtomicReferenceArray<>(headers.size());
        if (single != null) {
            opened.set(0, single);
            sources.set(0, singleSource);
        }
        Map<String, Integer> where = new HashMap<>();
        List<TensorInfo> all = new ArrayList<>();
        for (int i = 0; i < headers.size(); i++) {
            for (TensorInfo t : headers.get(i).tensors()) {
                where.put(t.name(), i);
                all.add(t);
            }
        }
        this.shardOf = where;
        this.tensors = Collections.unmodifiableList(all);
        this.openCost = openCost;
    }

    /**
     * Opens a checkpoint under {@link Limits#DEFAULT}.
     *
     * @param location a file, an index or a repository, as a path or a URI
     * @return the open checkpoint
     * @throws IOException if nothing is found there, a header or the index is invalid, they disagree, or a read fails
     */
    public static Checkpoint open(String location) throws IOException {
        return open(CheckpointFiles.locate(location), Limits.DEFAULT);
    }

    /**
     * @param path a local {@code .safetensors} file or {@code *.safetensors.index.json}
     * @return the open checkpoint
     * @throws IOException as {@link #open(String)}
     */
    public static Checkpoint open(Path path) throws IOException {
        return open(path.toString());
    }

    /**
     * Opens a checkpoint whose files were already located, such as one checkpoint of a repository's
     * {@link CheckpointFiles#locateAll}, or the one in a folder ({@link CheckpointFiles#locate(String, String)}).
     *
     * @param files  the checkpoint's files
     * @param limits the policy for the headers and for {@code readFloat32}
     * @return the open checkpoint
     * @throws IOException if a header is invalid, the index and headers disagree, or a read fails
     */
    public static Checkpoint open(CheckpointFiles files, Limits limits) throws IOException {
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(limits, "limits");
        SourceStatistics cost = files.cost();
        if (!files.isSharded()) {
            RandomAccessSource source = Sources.open(files.file());
            SafetensorsFile single = SafetensorsFile.open(source, limits);
            return new Checkpoint(files, limits, List.of(single.header()), source, single, cost);
        }
        List<SafetensorsHeader> headers = new ArrayList<>();
        Map<String, SafetensorsHeader> byName = new LinkedHashMap<>();
        List<String> names = files.index().orElseThrow().shards();
        for (int i = 0; i < names.size(); i++) {
            try (RandomAccessSource source = Sources.open(files.shards().get(i))) {
                try {
                    SafetensorsHeader h = Safetensors.readHeader(source, limits);
                    headers.add(h);
                    byName.put(names.get(i), h);
                } finally {
                    cost = cost.plus(source.statistics());
                }
            }
        }
        files.index().orElseThrow().verifyAgainst(byName);
        return new Checkpoint(files, limits, headers, null, null, cost);
    }

    /** @return where the files are */
    public CheckpointFiles files() {
        return files;
    }

    /** @return every tensor, shard by shard in index order, each shard's in its header's order */
    public List<TensorInfo> tensors() {
        return tensors;
    }

    /**
     * @param name a tensor name
     * @return its description
     * @throws TensorAccessException {@link ErrorCode#TENSOR_NOT_FOUND} if no shard holds it
     */
    public TensorInfo tensor(String name) throws TensorAccessException {
        return headers.get(shard(name)).tensor(name).orElseThrow();
    }

    /**
     * @param name a tensor name
     * @return the location of the shard that holds it
     * @throws TensorAccessException {@link ErrorCode#TENSOR_NOT_FOUND} if no shard holds it
     */
    public String shardOf(String name) throws TensorAccessException {
        return files.shards().get(shard(name));
    }

    /** @return each shard's validated header, in the order of {@link CheckpointFiles#shards()} */
    public List<SafetensorsHeader> headers() {
        return headers;
    }

    /**
     * The shard holding a tensor, opened on first use and then kept; its methods (reads, copies, and whatever else
     * {@link SafetensorsFile} offers) apply to the tensor by its name. Closing it is this checkpoint's job.
     *
     * @param tensor a tensor name
     * @return the open shard
     * @throws TensorAccessException  {@link ErrorCode#TENSOR_NOT_FOUND} if no shard holds the tensor
     * @throws SourceChangedException if the shard's header is no longer the one {@link #open} validated
     * @throws IOException            if this checkpoint is closed or the shard cannot be opened
     */
    public SafetensorsFile file(String tensor) throws IOException {
        int i = shard(tensor);
        SafetensorsFile f = opened.get(i);
        if (f != null) {
            ensureOpen();
            return f;
        }
        synchronized (opened) {
            ensureOpen();
            f = opened.get(i);
            if (f == null) {
                RandomAccessSource source = Sources.open(files.shards().get(i));
                f = SafetensorsFile.open(source, limits);
                if (!sameHeader(f.header(), headers.get(i))) {
                    f.close();
                    throw new SourceChangedException(files.shards().get(i), "the shard's header changed since the"
                            + " checkpoint was opened");
                }
                sources.set(i, source);
                opened.set(i, f);
            }
            return f;
        }
    }

    /**
     * @param name a tensor name
     * @return its bytes, as {@link SafetensorsFile#readBytes}
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#readBytes}
     */
    public ByteBuffer readBytes(String name) throws IOException {
        return file(name).readBytes(name);
    }

    /**
     * @param name a tensor name
     * @return its values widened to float32, as {@link SafetensorsFile#readFloat32(String)}
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#readFloat32(String)}
     */
    public float[] readFloat32(String name) throws IOException {
        return file(name).readFloat32(name);
    }

    /**
     * @param name a tensor name
     * @param dst  where to widen its values, as {@link SafetensorsFile#readFloat32(String, FloatBuffer)}
     * @return the number of floats written
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#readFloat32(String, FloatBuffer)}
     */
    public int readFloat32(String name, FloatBuffer dst) throws IOException {
        return file(name).readFloat32(name, dst);
    }

    /**
     * @param name a tensor name
     * @param out  where to copy its bytes
     * @return the number of bytes copied
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#copyTensorTo(String, WritableByteChannel)}
     */
    public long copyTensorTo(String name, WritableByteChannel out) throws IOException {
        return file(name).copyTensorTo(name, out);
    }

    /**
     * @param name a tensor name
     * @param out  where to copy its bytes
     * @return the number of bytes copied
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#copyTensorTo(String, OutputStream)}
     */
    public long copyTensorTo(String name, OutputStream out) throws IOException {
        return file(name).copyTensorTo(name, out);
    }

    /**
     * @return the requests made so far: locating, the index, every header, and the reads of every shard opened
     */
    public SourceStatistics statistics() {
        SourceStatistics total = openCost;
        for (int i = 0; i < sources.length(); i++) {
            RandomAccessSource source = sources.get(i);
            if (source != null) {
                total = total.plus(source.statistics());
            }
        }
        return total;
    }

    /** Closes every shard opened. */
    @Override
    public void close() throws IOException {
        IOException first = null;
        synchronized (opened) {
            closed = true;
            for (int i = 0; i < opened.length(); i++) {
                SafetensorsFile f = opened.get(i);
                if (f != null) {
                    try {
                        f.close();
                    } catch (IOException e) {
                        if (first == null) {
                            first = e;
                        } else {
                            first.addSuppressed(e);
                        }
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "Checkpoint[" + files.name() + ", " + tensors.size() + " tensors in " + headers.size() + " file"
                + (headers.size() == 1 ? "" : "s") + "]";
    }

    private int shard(String name) throws TensorAccessException {
        Integer i = shardOf.get(Objects.requireNonNull(name, "name"));
        if (i == null) {
            throw new TensorAccessException(ErrorCode.TENSOR_NOT_FOUND, files.name(), name, "no tensor of that name"
                    + " among the " + tensors.size() + " of the checkpoint");
        }
        return i;
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new StorageException(ErrorCode.IO_ERROR, files.name(), "the checkpoint is closed");
        }
    }

    private static boolean sameHeader(SafetensorsHeader a, SafetensorsHeader b) {
        return a.fileSize() == b.fileSize() && a.headerLength() == b.headerLength() && a.tensors().equals(b.tensors())
                && a.metadata().equals(b.metadata());
    }
}
