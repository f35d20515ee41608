package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import dev.safetensors.core.internal.write.TempFileJanitor;

/**
 * Writes canonical safetensors files.
 *
 * <pre>{@code
 * SafetensorsWriter.create()
 *         .metadata("format", "pt")
 *         .tensor("embed.weight", new long[] {2, 3}, new float[] {1, 2, 3, 4, 5, 6})
 *         .tensor("embed.bias", DType.BF16, new long[] {2}, bf16Bytes)
 *         .writeTo(Path.of("model.safetensors"));
 * }</pre>
 *
 * <h2>The canonical form</h2>
 * The header is compact JSON: {@code __metadata__} first when there is any (keys in the order they were added),
 * then the tensors in data order, each as {@code {"dtype":..,"shape":[..],"data_offsets":[b,e]}}; only quote,
 * backslash and control characters are escaped. It is padded with spaces so the payload starts at a multiple of 8
 * bytes (or of N, see {@link Alignment}). The payload holds the tensors contiguously, in the order they were added
 * unless an {@link #alignment(Alignment) alignment} orders them. The same calls therefore always give the same bytes.
 *
 * <h2>Streaming</h2>
 * A tensor's bytes may come from memory or from a {@link TensorSource}: a channel or a range of a
 * {@link dev.safetensors.RandomAccessSource}, read in 1 MiB blocks while the file is written. Memory use is then one
 * block whatever the checkpoint's size, and a tensor may exceed 2 GiB. A source must deliver exactly the length it
 * declared ({@link ErrorCode#TRUNCATED} or {@link ErrorCode#LENGTH_MISMATCH} otherwise). Writing checks the thread's
 * interrupt flag before every block ({@link java.io.InterruptedIOException}, code {@link ErrorCode#INTERRUPTED}).
 *
 * <h2>Checks</h2>
 * Before the first byte is written, the header is validated by the same validator readers use, under this writer's
 * {@link Limits}, against the payload it describes: whatever a reader would refuse, the writer refuses, with the same
 * {@link ErrorCode} (a duplicate name is {@code DUPLICATE_KEY}, a tensor named {@code __metadata__}
 * {@code INVALID_METADATA}, refused by its name, bytes that do not match dtype and shape {@code LENGTH_MISMATCH},
 * a dtype outside the policy {@code UNSUPPORTED_DTYPE}, and so on). A string with an unpaired surrogate is
 * {@code INVALID_UTF8}. So every file it writes passes the validator.
 *
 * <p>Tensor data is held by reference, not copied, until it is written: do not change it in between. Not
 * thread-safe; a writer may write the same content any number of times (a one-shot channel source only once).
 */
public final class SafetensorsWriter {
    private static final String STREAM_NAME = "<output>";

    private final Limits limits;
    private final List<WriterEntry> entries = new ArrayList<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();
    private Alignment alignment = Alignment.INSERTION_ORDER;
    private Durability durability = Durability.EACH_FILE;

    private SafetensorsWriter(Limits limits) {
        this.limits = limits;
    }

    /** @return an empty writer that checks its output under the strict {@link Limits#STRICT} policy */
    public static SafetensorsWriter create() {
        return create(Limits.STRICT);
    }

    /**
     * @param limits the policy the output must pass ({@link Limits#OFFICIAL} to write the F8 types, for example)
     * @return an empty writer
     */
    public static SafetensorsWriter create(Limits limits) {
        return new SafetensorsWriter(Objects.requireNonNull(limits, "limits"));
    }

    /**
     * Adds a metadata entry, or replaces the value of a key already added (keeping its place).
     *
     * @param key   the key
     * @param value the value
     * @return this writer
     */
    public SafetensorsWriter metadata(String key, String value) {
        metadata.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * Adds every entry of {@code entries}, in its iteration order, as {@link #metadata(String, String)} does.
     *
     * @param entries the entries
     * @return this writer
     */
    public SafetensorsWriter metadata(Map<String, String> entries) {
        entries.forEach(this::metadata);
        return this;
    }

    /**
     * Adds a tensor given as its little-endian bytes.
     *
     * @param name  the name
     * @param dtype the element type
     * @param shape the dimensions (copied); empty for a scalar
     * @param bytes the tensor's bytes are those between position and limit; the buffer is kept, not copied, and its
     *              position and limit are not changed
     * @return this writer
     */
    public SafetensorsWriter tensor(String name, DType dtype, long[] shape, ByteBuffer bytes) {
        return tensor(name, dtype, shape, TensorSource.of(bytes));
    }

    /**
     * Adds a tensor whose bytes are read from a source while the file is written.
     *
     * @param name   the name
     * @param dtype  the element type
     * @param shape  the dimensions (copied); empty for a scalar
     * @param source the tensor's little-endian bytes; its declared length must match dtype and shape
     * @return this writer
     */
    public SafetensorsWriter tensor(String name, DType dtype, long[] shape, TensorSource source) {
        entries.add(WriterEntry.of(Objects.requireNonNull(name, "name"), Objects.requireNonNull(dtype, "dtype"),
                shape, Objects.requireNonNull(source, "source")));
        return this;
    }

    /** Adds tensors already queued by another writer (a shard of a {@link ShardedWriter}). */
    void addAll(List<WriterEntry> more) {
        entries.addAll(more);
    }

    /**
     * Chooses the layout of the payload; the default is {@link Alignment#INSERTION_ORDER}.
     *
     * @param alignment the layout
     * @return this writer
     */
    public SafetensorsWriter alignment(Alignment alignment) {
        this.alignment = Objects.requireNonNull(alignment, "alignment");
        return this;
    }

    /**
     * Adds a tensor given as its little-endian bytes.
     *
     * @param name  the name
     * @param dtype the element type
     * @param shape the dimensions (copied); empty for a scalar
     * @param bytes the tensor's bytes; kept, not copied
     * @return this writer
     */
    public SafetensorsWriter tensor(String name, DType dtype, long[] shape, byte[] bytes) {
        return tensor(name, dtype, shape, ByteBuffer.wrap(bytes));
    }

    /**
     * Adds an F32 tensor, written little-endian with every bit kept (NaN payloads included).
     *
     * @param name   the name
     * @param shape  the dimensions (copied); empty for a scalar
     * @param values the elements in row-major order; kept, not copied
     * @return this writer
     */
    public SafetensorsWriter tensor(String name, long[] shape, float[] values) {
        entries.add(WriterEntry.ofFloats(Objects.requireNonNull(name, "name"), shape,
                Objects.requireNonNull(values, "values")));
        return this;
    }

    /**
     * Adds a tensor given as float32 values, written as {@code dtype}: F32 keeps every bit; F16 and BF16 round to the
     * nearest value, ties to even, with {@link Float32Narrowing} (NaN stays NaN, too large becomes infinity). The
     * values are narrowed block by block while the file is written, never held twice.
     *
     * @param name   the name
     * @param dtype  F32, F16 or BF16
     * @param shape  the dimensions (copied); empty for a scalar
     * @param values the elements in row-major order; kept, not copied
     * @return this writer
     * @throws IllegalArgumentException if {@code dtype} is not F32, F16 or BF16
     */
    public SafetensorsWriter tensor(String name, DType dtype, long[] shape, float[] values) {
        entries.add(WriterEntry.ofFloats(Objects.requireNonNull(name, "name"), Objects.requireNonNull(dtype, "dtype"),
                shape, Objects.requireNonNull(values, "values")));
        return this;
    }

    /**
     * Chooses whether {@link #writeTo(Path)} forces the file to the device before renaming it into place.
     *
     * @param durability {@link Durability#EACH_FILE} or {@link Durability#AT_END} (the default: force, the same for one
     *                   file) or {@link Durability#NONE} (no force: a machine crash may leave the file partly written)
     * @return this writer
     */
    public SafetensorsWriter durability(Durability durability) {
        this.durability = Objects.requireNonNull(durability, "durability");
        return this;
    }

    /**
     * Validates what this writer would write and returns it as a reader would see it; writes nothing.
     *
     * @return the header of the output, tensors in data order
     * @throws IOException a {@link dev.safetensors.SafetensorsException} naming the rule the output would break
     */
    public SafetensorsHeader header() throws IOException {
        return encode(STREAM_NAME).header();
    }

    /**
     * Writes the file to a channel, which is neither flushed nor closed. Nothing is written if a check fails.
     *
     * @param out where the file goes
     * @return the number of bytes written
     * @throws IOException a {@link dev.safetensors.SafetensorsException} if the output would break a rule (see the
     *                     class comment), or a failure of the channel
     */
    public long writeTo(WritableByteChannel out) throws IOException {
        Objects.requireNonNull(out, "out");
        return encode(STREAM_NAME).writeTo(new BlockCopy(STREAM_NAME, out));
    }

    /**
     * Writes the file to a stream, which is neither flushed nor closed. Nothing is written if a check fails.
     *
     * @param out where the file goes
     * @return the number of bytes written
     * @throws IOException a {@link dev.safetensors.SafetensorsException} if the output would break a rule (see the
     *                     class comment), or a failure of the stream
     */
    public long writeTo(OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        return encode(STREAM_NAME).writeTo(new BlockCopy(STREAM_NAME, Channels.newChannel(out)));
    }

    /**
     * Writes the file to {@code path} atomically: into a temporary file in the same directory, forced to the device,
     * then renamed over {@code path}. Readers see the old file or the whole new one, never a part. If a check fails,
     * nothing is created; if writing fails (a source that delivers too few or too many bytes, an interrupt, a full
     * disk), the temporary file is deleted, and the JVM's shutdown deletes one still being written.
     *
     * <p>What is replaced is respected: a symbolic link is written through (its target is replaced, the link stays;
     * a link to a missing file is refused with {@link ErrorCode#NOT_FOUND}); a replaced file keeps its POSIX
     * permissions (a 0600 file stays 0600, and the new bytes are never readable by more users than the old ones); a
     * directory, FIFO or device is refused with {@link ErrorCode#NOT_A_FILE}. Runs of zeros of 1 MiB blocks are left
     * as holes, so a sparse input gives a sparse file.
     *
     * @param path where the file goes; an existing file is replaced
     * @return the number of bytes written
     * @throws IOException a {@link dev.safetensors.SafetensorsException} if the output would break a rule (see the
     *                     class comment), or a failure of the source or the file system
     */
    public long writeTo(Path path) throws IOException {
        Encoded encoded = encode(path.toString());
        try (AtomicFile file = AtomicFile.create(path, true, TempFileJanitor.JVM)) {
            long written = encoded.writeTo(file);
            file.commit(durability != Durability.NONE);
            return written;
        }
    }

    /** @return the header and tensors to write, validated under this writer's limits */
    Encoded encode(String target) throws IOException {
        List<WriterEntry> ordered = alignment.order(entries);
        byte[] json = HeaderEncoder.encode(target, ordered, metadata, alignment.payloadMultiple());
        long size = 8L + json.length;
        for (WriterEntry e : ordered) {
            if (e.byteLength() > Long.MAX_VALUE - size) {
                throw new InvalidHeaderException(ErrorCode.OVERFLOW, target, "the tensors hold more than 2^63-1"
                        + " bytes together", e.name(), -1);
            }
            size += e.byteLength();
        }
        SafetensorsHeader header = Safetensors.parseHeader(target, json, size, limits);
        return new Encoded(target, json, header, ordered);
    }

    /** A header that passed the validator, and the tensors it describes in data order. */
    record Encoded(String target, byte[] json, SafetensorsHeader header, List<WriterEntry> entries) {
        /** Writes the whole file into a temporary file, leaving holes for zeros; the caller commits it. */
        long writeTo(AtomicFile file) throws IOException {
            return writeTo(file, BlockCopy.newBlock());
        }

        /** The same through a buffer shared by the files of one writer. */
        long writeTo(AtomicFile file, ByteBuffer block) throws IOException {
            BlockCopy copy = new BlockCopy(target, file.channel(), block);
            long written = writeTo(copy);
            copy.finish();
            return written;
        }

        long writeTo(BlockCopy out) throws IOException {
            ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, json.length);
            out.write(prefix);
            out.write(ByteBuffer.wrap(json));
            for (WriterEntry e : entries) {
                e.writeTo(out);
            }
            return header.fileSize();
        }
    }
}
