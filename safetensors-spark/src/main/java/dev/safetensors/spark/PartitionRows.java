package dev.safetensors.spark;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.ShardIndex;
import dev.safetensors.core.internal.index.IndexAgreement;
import dev.safetensors.core.internal.index.OrderedWindow;
import dev.safetensors.core.Float32Widening;
import dev.safetensors.core.Sha256Channel;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One task's rows: its files' headers read in order (several in flight), each turned into one file row or one row
 * per tensor, failures handled by {@code mode}, and tensor bytes fetched only for the columns Spark asked for and
 * the tensors the pushed filters keep.
 *
 * <p>A valid file with no tensors is one row whose tensor columns and error columns are null, so no file read
 * vanishes from the result.
 *
 * <p>A failure to read a tensor's bytes after its header was read (the object changed, the connection broke) gives
 * that tensor's row with {@code error_code} and {@code error} set under {@code PERMISSIVE}; the file's other tensors
 * are still read.
 */
final class PartitionRows implements PartitionReader<InternalRow> {
    private final List<FileGroup> groups;
    private final ScanOptions options;
    private final TensorFilter filter;
    private final RowLayout layout;
    /** The files' headers, read in order through the library's one ordered, bounded reader. */
    private final OrderedWindow<String, HeaderRead> headers;
    private final ScanMetrics metrics = new ScanMetrics();
    private final boolean fileLevel;
    private final boolean wantSha;
    private final boolean wantData;
    /** The index of the group being read, judged against its shards' headers one at a time as they come. */
    private IndexAgreement agreement;
    /** The group's shards by location, to the names its index gives them. */
    private final Map<String, String> shardNames = new HashMap<>();
    private IOException indexFailure;
    private boolean indexLocated;
    private boolean shardFailed;

    private int groupAt;
    private int fileInGroup;
    private HeaderRead file;
    private Object[] fileValues;
    private Iterator<TensorInfo> tensors;
    private TensorInfo tensor;
    private TensorBytes bytes;
    private int chunk;
    private InternalRow current;

    PartitionRows(List<FileGroup> groups, ScanOptions options, StructType required, TensorFilter filter) {
        this.groups = groups;
        this.options = options;
        this.filter = filter;
        this.layout = new RowLayout(SafetensorsSchemas.of(options), required);
        this.fileLevel = options.level() == ScanOptions.Level.FILE;
        this.wantSha = !fileLevel && layout.wants("sha256");
        this.wantData = !fileLevel && (layout.wants("data") || layout.wants("chunk"));
        List<String> files = new ArrayList<>();
        groups.forEach(g -> files.addAll(g.files()));
        boolean keepOpen = wantSha || wantData;
        this.headers = new OrderedWindow<>(files.iterator(), l -> HeaderRead.read(l, options.limits(), keepOpen),
                l -> false, HeaderRead::close, Math.max(1, Math.min(options.ioThreads(), files.size())), "header");
    }

    @Override
    public boolean next() throws IOException {
        while (true) {
            if (bytes != null) {
                InternalRow row = nextChunkRow();
                if (row != null) {
                    current = row;
                    return true;
                }
            }
            while (tensors != null && tensors.hasNext()) {
                TensorInfo t = tensors.next();
                if (filter.matches(t)) {
                    InternalRow row = startTensor(t);
                    if (row != null) {
                        current = row;
                        return true;
                    }
                }
            }
            finishFile();
            InternalRow indexRow = finishGroups();
            if (indexRow != null) {
                current = indexRow;
                return true;
            }
            if (groupAt == groups.size()) {
                return false;
            }
            fileInGroup++;
            InternalRow row = startFile(headers.next());
            if (row != null) {
                current = row;
                return true;
            }
        }
    }

    @Override
    public InternalRow get() {
        return current;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return metrics.values();
    }

    @Override
    public void close() throws IOException {
        try {
            if (bytes != null) {
                bytes.close();
            }
        } finally {
            finishFile();
            headers.close();
        }
    }

    /** @return the file's row (file level, or a failure), or {@code null} when its tensors follow */
    private InternalRow startFile(HeaderRead read) throws IOException {
        metrics.file();
        file = read;
        FileGroup group = groups.get(groupAt);
        if (options.expandIndex() && group.index() != null) {
            locateIndex(group.index());
            if (read.header == null) {
                shardFailed = true;
            } else if (agreement != null) {
                agreement.accept(shardNames.getOrDefault(read.location, read.location), read.header);
            }
        }
        if (read.failure != null) {
            return failed(read.location, read.failure, read);
        }
        fileValues = layout.blank();
        put(fileValues, "path", read.location);
        put(fileValues, "file_size", read.header.fileSize());
        put(fileValues, "header_length", read.header.headerLength());
        put(fileValues, "version", read.version);
        if (fileLevel) {
            read.close();
            return fileRow(read);
        }
        if (read.header.tensors().isEmpty()) {
            return layout.row(fileValues);
        }
        tensors = read.header.tensors().iterator();
        return null;
    }

    private InternalRow fileRow(HeaderRead read) {
        SafetensorsHeader h = read.header;
        Object[] v = fileValues;
        put(v, "tensor_count", (long) h.tensors().size());
        Map<String, Long> dtypes = new TreeMap<>();
        Long parameters = 0L;
        for (TensorInfo t : h.tensors()) {
            dtypes.merge(t.dtype().name(), 1L, Long::sum);
            if (parameters != null) {
                parameters = t.elementCount() > Long.MAX_VALUE - parameters ? null : parameters + t.elementCount();
            }
        }
        put(v, "parameters", parameters);
        long[] counts = dtypes.values().stream().mapToLong(Long::longValue).toArray();
        v[layout.column("dtype_counts")] = new ArrayBasedMapData(strings(dtypes.keySet()),
                UnsafeArrayData.fromPrimitiveArray(counts));
        v[layout.column("metadata")] = new ArrayBasedMapData(strings(h.metadata().keySet()),
                strings(h.metadata().values()));
        put(v, "requests", read.statistics().requests());
        put(v, "bytes_read", read.statistics().bytesRead());
        return layout.row(v);
    }

    /** @return the tensor's row, or its first chunk row, or {@code null} if it was dropped */
    private InternalRow startTensor(TensorInfo t) throws IOException {
        Object[] v = tensorValues(t);
        chunk = 0;
        if (!wantSha && !wantData) {
            return layout.row(v);
        }
        boolean widenable = options.data() == ScanOptions.DataMode.BINARY || Float32Widening.supports(t.dtype());
        RandomAccessSource source = file.source();
        long payload = file.header.payloadOffset();
        try {
            if (wantData && widenable) {
                tensor = t;
                bytes = new TensorBytes(source, payload, t, chunkBytes(t), wantSha);
                return nextChunkRow();
            }
            if (wantData) {
                put(v, "chunk", 0);
            }
            if (wantSha) {
                put(v, "sha256", Sha256Channel.sha256(source, payload + t.begin(), t.byteLength(), n -> { }));
            }
            return layout.row(v);
        } catch (IOException e) {
            return tensorFailed(t, e);
        }
    }

    /** @return the next chunk's row, or {@code null} if reading it failed and the tensor was dropped */
    private InternalRow nextChunkRow() throws IOException {
        TensorInfo t = tensor;
        Object[] v = tensorValues(t);
        try {
            byte[] chunkData = bytes.nextChunk();
            put(v, "chunk", chunk++);
            v[layout.column("data")] = options.data() == ScanOptions.DataMode.BINARY ? chunkData
                    : UnsafeArrayData.fromPrimitiveArray(Float32Widening.widen(t.dtype(), chunkData));
            if (!bytes.hasMore()) {
                if (wantSha) {
                    put(v, "sha256", bytes.sha256Hex());
                }
                closeBytes();
            }
            return layout.row(v);
        } catch (IOException e) {
            closeBytes();
            return tensorFailed(t, e);
        }
    }

    private int chunkBytes(TensorInfo t) {
        if (options.data() == ScanOptions.DataMode.BINARY) {
            return options.maxTensorBytes();
        }
        return Math.max(1, options.maxTensorBytes() / 4) * t.dtype().byteSize();
    }

    private void closeBytes() {
        try {
            bytes.close();
        } catch (IOException e) {
            // the bytes handed out were complete; closing a read channel early only aborts its request
        }
        bytes = null;
        tensor = null;
    }

    private Object[] tensorValues(TensorInfo t) {
        Object[] v = fileValues.clone();
        put(v, "tensor", t.name());
        put(v, "dtype", t.dtype().name());
        v[layout.column("shape")] = UnsafeArrayData.fromPrimitiveArray(t.shape());
        put(v, "element_count", t.elementCount());
        put(v, "begin", file.header.payloadOffset() + t.begin());
        put(v, "end", file.header.payloadOffset() + t.end());
        return v;
    }

    private InternalRow tensorFailed(TensorInfo t, IOException e) throws IOException {
        if (options.mode() == ScanOptions.Mode.FAILFAST) {
            throw e;
        }
        if (options.mode() == ScanOptions.Mode.DROPMALFORMED) {
            return null;
        }
        Object[] v = tensorValues(t);
        put(v, "error_code", ErrorCode.of(e).name());
        put(v, "error", String.valueOf(e.getMessage()));
        return layout.row(v);
    }

    /** A file or index that failed: thrown, dropped ({@code null}), or one row with the error columns. */
    private InternalRow failed(String location, IOException e, HeaderRead read) throws IOException {
        if (options.mode() == ScanOptions.Mode.FAILFAST) {
            throw e;
        }
        if (options.mode() == ScanOptions.Mode.DROPMALFORMED) {
            return null;
        }
        Object[] v = layout.blank();
        put(v, "path", location);
        put(v, "error_code", ErrorCode.of(e).name());
        put(v, "error", String.valueOf(e.getMessage()));
        if (fileLevel) {
            put(v, "requests", read == null ? 0L : read.statistics().requests());
            put(v, "bytes_read", read == null ? 0L : read.statistics().bytesRead());
        }
        return layout.row(v);
    }

    private void finishFile() {
        if (file != null) {
            file.close();
            metrics.add(file.statistics());
            file = null;
            fileValues = null;
            tensors = null;
        }
    }

    /** Closes the groups whose files are all read, cross-checking each index: a failure is the index's row. */
    private InternalRow finishGroups() throws IOException {
        while (groupAt < groups.size() && fileInGroup == groups.get(groupAt).files().size()) {
            FileGroup g = groups.get(groupAt++);
            fileInGroup = 0;
            if (g.index() != null) {
                InternalRow row = checkIndex(g.index());
                agreement = null;
                shardNames.clear();
                indexFailure = null;
                indexLocated = false;
                shardFailed = false;
                if (row != null) {
                    return row;
                }
            }
        }
        return null;
    }

    /** Reads the group's index once, through the scan's client, before its first shard is judged. */
    private void locateIndex(String index) {
        if (indexLocated) {
            return;
        }
        indexLocated = true;
        try {
            CheckpointFiles files = options.client().locate(Location.parse(index));
            metrics.add(files.cost());
            ShardIndex map = files.index().orElseThrow();
            for (int i = 0; i < files.shards().size(); i++) {
                shardNames.put(files.shards().get(i).text(), map.shards().get(i));
            }
            agreement = new IndexAgreement(map.source(), map.shards(), map.weightMap(), map.totalSize().orElse(-1));
        } catch (IOException e) {
            indexFailure = e;
        }
    }

    /**
     * The library's rule for an index and its shards: judged only when every shard passed (a failed shard is its
     * own row), the first disagreement the index's row.
     */
    private InternalRow checkIndex(String index) throws IOException {
        locateIndex(index);
        if (indexFailure != null) {
            return failed(index, indexFailure, null);
        }
        if (shardFailed) {
            return null;
        }
        try {
            agreement.finish();
            return null;
        } catch (InvalidHeaderException e) {
            return failed(index, e, null);
        }
    }

    private void put(Object[] v, String column, Object value) {
        v[layout.column(column)] = value instanceof String s ? UTF8String.fromString(s) : value;
    }

    private static GenericArrayData strings(java.util.Collection<String> values) {
        Object[] out = new Object[values.size()];
        int i = 0;
        for (String s : values) {
            out[i++] = UTF8String.fromString(s);
        }
        return new GenericArrayData(out);
    }
}
