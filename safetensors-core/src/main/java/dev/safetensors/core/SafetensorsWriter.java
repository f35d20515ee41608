package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

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
 * then the tensors in the order they were added, each as {@code {"dtype":..,"shape":[..],"data_offsets":[b,e]}};
 * only quote, backslash and control characters are escaped. It is padded with spaces to a multiple of 8 bytes, so the
 * payload starts 8-aligned. The payload holds the tensors contiguously in the order they were added. The same calls
 * therefore always give the same bytes.
 *
 * <h2>Checks</h2>
 * Before the first byte is written, the header is validated by the same validator readers use, under this writer's
 * {@link Limits}, against the payload it describes: whatever a reader would refuse, the writer refuses, with the same
 * {@link dev.safetensors.ErrorCode} (a duplicate name is {@code DUPLICATE_KEY}, a tensor named {@code __metadata__}
 * {@code INVALID_METADATA} or {@code DUPLICATE_KEY}, bytes that do not match dtype and shape {@code LENGTH_MISMATCH},
 * a dtype outside the policy {@code UNSUPPORTED_DTYPE}, and so on). A string with an unpaired surrogate is
 * {@code INVALID_UTF8}. So every file it writes passes the validator.
 *
 * <p>Tensor data is held by reference, not copied, until it is written: do not change it in between. Not
 * thread-safe; a writer may write the same content any number of times.
 */
public final class SafetensorsWriter {
    private static final String STREAM_NAME = "<output>";

    private final Limits limits;
    private final List<WriterEntry> entries = new ArrayList<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();

    private SafetensorsWriter(Limits limits) {
        this.limits = limits;
    }

    /** @return an empty writer that checks its output under the strict {@link Limits#DEFAULT} policy */
    public static SafetensorsWriter create() {
        return create(Limits.DEFAULT);
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
        entries.add(WriterEntry.ofBytes(Objects.requireNonNull(name, "name"), Objects.requireNonNull(dtype, "dtype"),
                shape, bytes));
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
     * Validates what this writer would write and returns it as a reader would see it; writes nothing.
     *
     * @return the header of the output, tensors in data order (the order they were added)
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
        return encode(STREAM_NAME).writeTo(out);
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
        return encode(STREAM_NAME).writeTo(Channels.newChannel(out));
    }

    /**
     * Writes the file to {@code path} atomically: into a temporary file in the same directory, forced to the device,
     * then moved over {@code path}. Readers see the old file or the whole new one, never a part. If a check fails,
     * nothing is created; if writing fails, the temporary file is deleted.
     *
     * @param path where the file goes; an existing file is replaced
     * @return the number of bytes written
     * @throws IOException a {@link dev.safetensors.SafetensorsException} if the output would break a rule (see the
     *                     class comment), or a failure of the file system
     */
    public long writeTo(Path path) throws IOException {
        Path target = path.toAbsolutePath();
        Encoded encoded = encode(path.toString());
        // not Files.createTempFile: its owner-only permissions would end up on the result
        Path temp = target.resolveSibling("." + target.getFileName() + "." + Long.toUnsignedString(
                ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
        FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            long written;
            try (ch) {
                written = encoded.writeTo(ch);
                ch.force(true);
            }
            move(temp, target);
            return written;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    private static void move(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private Encoded encode(String target) throws IOException {
        byte[] json = HeaderEncoder.encode(target, entries, metadata);
        long size = 8L + json.length;
        for (WriterEntry e : entries) {
            size += e.byteLength();
        }
        SafetensorsHeader header = Safetensors.parseHeader(target, json, size, limits);
        return new Encoded(json, header, List.copyOf(entries));
    }

    /** A header that passed the validator, and the tensors it describes. */
    private record Encoded(byte[] json, SafetensorsHeader header, List<WriterEntry> entries) {
        long writeTo(WritableByteChannel out) throws IOException {
            ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, json.length);
            WriterEntry.writeFully(out, prefix);
            WriterEntry.writeFully(out, ByteBuffer.wrap(json));
            for (WriterEntry e : entries) {
                e.writeTo(out);
            }
            return header.fileSize();
        }
    }
}
