package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.FileSource;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.core.TensorSource;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The tensors of one output file while a task receives them: their bytes appended to a spool file (a safetensors
 * header can only be written once every tensor is known), then written as one canonical file by the library's
 * writer, streaming from the spool. Memory stays one block whatever the file's size.
 */
final class SpooledFile implements Closeable {
    private final Path spool;
    private final String output;
    private final FileChannel channel;
    private final List<Entry> entries = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private Entry open;
    private long bytes;

    private record Entry(String name, DType dtype, long[] shape, long offset, long length) {
    }

    /** @param output names the write's output, for messages */
    SpooledFile(Path spool, String output) throws IOException {
        this.spool = spool;
        this.output = output;
        this.channel = FileChannel.open(spool, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    /** @return the sum of the bytes of the tensors begun so far (declared lengths) */
    long bytes() {
        return bytes;
    }

    boolean isEmpty() {
        return entries.isEmpty() && open == null;
    }

    /** Records a key this file holds (keyed layout). */
    void key(String key) {
        keys.add(key);
    }

    /** Starts a tensor of {@code length} bytes; its bytes follow through {@link #append}. */
    void begin(String name, DType dtype, long[] shape, long length) throws IOException {
        end();
        open = new Entry(name, dtype, shape.clone(), channel.position(), length);
        bytes += length;
    }

    /** Appends bytes to the open tensor, refusing more than it declared. */
    void append(ByteBuffer data) throws IOException {
        long written = channel.position() - open.offset();
        if (written + data.remaining() > open.length()) {
            throw new InvalidHeaderException(ErrorCode.LENGTH_MISMATCH, output, "the rows of this tensor"
                    + " hold more than the " + open.length() + " bytes its dtype and shape give", open.name(), -1);
        }
        while (data.hasRemaining()) {
            channel.write(data);
        }
    }

    /** Ends the open tensor, if any, checking it received exactly the bytes it declared. */
    void end() throws IOException {
        if (open == null) {
            return;
        }
        long written = channel.position() - open.offset();
        if (written != open.length()) {
            throw new InvalidHeaderException(ErrorCode.LENGTH_MISMATCH, output, "the rows of this tensor"
                    + " hold " + written + " bytes; its dtype and shape give " + open.length()
                    + " (are its chunks split across partitions?)", open.name(), -1);
        }
        entries.add(open);
        open = null;
    }

    /**
     * Writes the tensors as one safetensors file and deletes the spool.
     *
     * @return what was written, named as {@code target}'s file name
     */
    WrittenFile finish(WriteOptions options, Path target, long rows) throws IOException {
        end();
        channel.force(false);
        List<WrittenTensor> tensors = new ArrayList<>();
        try (FileSource source = FileSource.open(spool)) {
            SafetensorsWriter writer = SafetensorsWriter.create().alignment(options.payloadAlignment())
                    .metadata(options.metadata());
            for (Entry e : entries) {
                writer.tensor(e.name(), e.dtype(), e.shape(), TensorSource.range(source, e.offset(), e.length()));
                tensors.add(new WrittenTensor(e.name(), e.dtype().name(), e.shape()));
            }
            writer.writeTo(target);
        } finally {
            close();
        }
        return new WrittenFile(target.getFileName().toString(), rows, bytes, List.copyOf(tensors),
                List.copyOf(keys));
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            Files.deleteIfExists(spool);
        }
    }
}
