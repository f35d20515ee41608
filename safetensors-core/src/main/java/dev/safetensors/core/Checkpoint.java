package dev.safetensors.core;

import dev.safetensors.Slice;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.Location;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import dev.safetensors.core.internal.index.IndexAgreement;

/**
 * One logical checkpoint: a single file, a sharded checkpoint behind its {@code *.safetensors.index.json} (local or
 * remote), or a checkpoint of a repository a provider lists, seen as one set of tensors.
 *
 * <p>{@link SafetensorsClient#openCheckpoint(Location)} finds the files ({@link CheckpointFiles}) through the
 * client's {@link SourceRegistry}, reads and validates every shard's header once, {@link ReadOptions#parallelism()} at
 * a time, and cross-checks them against the index as {@link ShardIndex#verifyAgainst} does: every tensor in exactly
 * the shard the index maps it to, {@code total_size} equal to the bytes held. A checkpoint that opens is consistent.
 * {@link SafetensorsClient#check} does the same work without throwing at the first bad shard, for tools that report
 * every shard.
 *
 * <p>Tensors are read through the shard that holds them: {@link #file(String)} gives that shard's
 * {@link SafetensorsFile}; {@link #readBytes}, {@link #readFloat32}, {@link #copyTensorTo}, {@link #slice} and
 * {@link #map} are shortcuts. A remote shard is read through the very source its header came from, pinned to the
 * version seen then, so no second header request is made and a shard replaced meanwhile is a
 * {@link SourceChangedException}. A local shard is reopened on first use, its header read again and compared with
 * the one validated at open (a local read, no descriptor held meanwhile). A single-file checkpoint keeps the file
 * validated at open.
 *
 * <p>Thread-safe. {@link #close()} closes every shard; reads after it fail with an {@link IOException}.
 */
public final class Checkpoint implements AutoCloseable {
    private final CheckpointFiles files;
    private final SafetensorsClient options;
    private final List<SafetensorsHeader> headers;
    private final Map<String, Integer> shardOf;
    private final List<TensorInfo> tensors;
    private final AtomicReferenceArray<SafetensorsFile> opened;
    /** The source under each shard that is open (kept from the header read, or opened on first use). */
    private final AtomicReferenceArray<RandomAccessSource> sources;
    /** Payload bytes that came with each kept source's header, until its file is made. */
    private final AtomicReferenceArray<ByteBuffer> prefixes;
    private final SourceStatistics openCost;
    private volatile boolean closed;

    private Checkpoint(CheckpointFiles files, SafetensorsClient options, List<SafetensorsHeader> headers,
                       List<ShardHeaders.Read> kept, SafetensorsFile single, RandomAccessSource singleSource,
                       SourceStatistics openCost) {
        this.files = files;
        this.options = options;
        this.headers = List.copyOf(headers);
        this.opened = new AtomicReferenceArray<>(headers.size());
        this.sources = new AtomicReferenceArray<>(headers.size());
        this.prefixes = new AtomicReferenceArray<>(headers.size());
        for (int i = 0; i < kept.size(); i++) {
            sources.set(i, kept.get(i).source());
            prefixes.set(i, kept.get(i).prefix());
        }
        if (singleSource != null) {
            sources.set(0, singleSource);
        }
        if (single != null) {
            opened.set(0, single);
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
     * Opens a checkpoint with the {@linkplain SafetensorsClient#defaultClient() default client}, as
     * {@link SafetensorsClient#openCheckpoint(Location)}.
     *
     * @param location a file, an index, a folder or prefix holding one checkpoint, or a repository, as a path or a URI
     * @return the open checkpoint
     * @throws IOException if nothing is found there, a header or the index is invalid, they disagree, or a read fails
     */
    public static Checkpoint open(String location) throws IOException {
        return SafetensorsClient.defaultClient().openCheckpoint(Location.parse(location));
    }

    /**
     * @param path a local {@code .safetensors} file, {@code *.safetensors.index.json}, or a folder holding one
     * @return the open checkpoint, opened with the {@linkplain SafetensorsClient#defaultClient() default client}
     * @throws IOException as {@link #open(String)}
     */
    public static Checkpoint open(Path path) throws IOException {
        return SafetensorsClient.defaultClient().openCheckpoint(Location.of(path));
    }

    /** What {@link SafetensorsClient#openCheckpoint(CheckpointFiles)} does. */
    static Checkpoint open(CheckpointFiles files, SafetensorsClient options) throws IOException {
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(options, "options");
        SourceStatistics cost = files.cost();
        if (!files.isSharded()) {
            // one file: opened as a SafetensorsFile at once, so its first read's payload bytes are kept too
            RandomAccessSource source = options.registry().open(files.file());
            SafetensorsFile single = SafetensorsFile.open(source, options.limits(), true, options.readOptions());
            return new Checkpoint(files, options, List.of(single.header()), List.of(), single, source, cost);
        }
        List<ShardHeaders.Read> reads = ShardHeaders.read(files.shards(), options, true);
        try {
            ShardIndex index = files.index().orElseThrow();
            IndexAgreement agreement = index.agreement();
            List<SafetensorsHeader> headers = new ArrayList<>(reads.size());
            SourceStatistics openCost = cost;
            for (int i = 0; i < reads.size(); i++) {
                ShardVerdict v = reads.get(i).verdict();
                if (v.failure().isPresent()) {
                    // the first shard's failure in shard order, as a caller reading them one by one would meet it
                    throw v.failure().get();
                }
                headers.add(v.header().orElseThrow());
                agreement.accept(index.shards().get(i), v.header().get());
                if (reads.get(i).source() == null) {
                    // a kept source's requests are counted live, by statistics()
                    openCost = openCost.plus(v.cost());
                }
            }
            agreement.finish();
            return new Checkpoint(files, options, headers, reads, null, null, openCost);
        } catch (IOException | RuntimeException e) {
            for (ShardHeaders.Read r : reads) {
                if (r.source() != null) {
                    try {
                        r.source().close();
                    } catch (IOException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
            }
            throw e;
        }
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
    public Location shardOf(String name) throws TensorAccessException {
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
                RandomAccessSource kept = sources.get(i);
                if (kept != null) {
                    // the source the header was read from, pinned to that version: no second header request
                    f = SafetensorsFile.ofRead(kept, headers.get(i), options.limits(), options.readOptions(),
                            prefixes.getAndSet(i, null));
                } else {
                    RandomAccessSource source = options.registry().open(files.shards().get(i));
                    f = SafetensorsFile.open(source, options.limits(), true, options.readOptions());
                    if (!sameHeader(f.header(), headers.get(i))) {
                        f.close();
                        throw new SourceChangedException(files.shards().get(i).display(), "the shard's header"
                                + " changed since the checkpoint was opened");
                    }
                    sources.set(i, source);
                }
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
     * @param dst  where to copy its bytes, as {@link SafetensorsFile#readBytes(String, ByteBuffer)}
     * @return the number of bytes copied
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#readBytes(String, ByteBuffer)}
     */
    public long readBytes(String name, ByteBuffer dst) throws IOException {
        return file(name).readBytes(name, dst);
    }

    /**
     * @param name   a tensor name
     * @param slices one per leading dimension, as {@link SafetensorsFile#slice}
     * @return the planned slice
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#slice}
     */
    public TensorSlice slice(String name, Slice... slices) throws IOException {
        return file(name).slice(name, slices);
    }

    /**
     * @param name a tensor name
     * @return its bytes mapped from a local shard, as {@link SafetensorsFile#map}
     * @throws IOException as {@link #file(String)} and {@link SafetensorsFile#map}
     */
    public ByteBuffer map(String name) throws IOException {
        return file(name).map(name);
    }

    /** @return the totals over every shard: sizes, tensors and elements, and the same per dtype */
    public TensorTotals totals() {
        return TensorTotals.of(headers);
    }

    /** @return the options the checkpoint was opened with */
    public SafetensorsClient options() {
        return options;
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

    /** Closes every shard. */
    @Override
    public void close() throws IOException {
        IOException first = null;
        synchronized (opened) {
            closed = true;
            for (int i = 0; i < opened.length(); i++) {
                SafetensorsFile f = opened.get(i);
                RandomAccessSource s = sources.get(i);
                if (f != null || s != null) {
                    try {
                        if (f != null) {
                            f.close();
                        } else {
                            s.close();
                        }
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
