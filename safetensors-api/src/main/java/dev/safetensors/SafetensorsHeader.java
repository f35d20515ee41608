package dev.safetensors;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A validated safetensors header: the tensors in data order, a lookup by name, the metadata, and the sizes
 * of the parts of the file.
 *
 * <pre>
 * | 8-byte length N | header JSON (N bytes) | payload (payloadLength() bytes) |
 *                   ^ 8                     ^ payloadOffset() = 8 + N
 * </pre>
 *
 * <p>Immutable and thread-safe. Obtain instances from the core module's header reader, which guarantees that
 * the tensors tile the payload exactly; the public constructor makes no such check.
 */
public final class SafetensorsHeader {
    private final String source;
    private final long fileSize;
    private final long headerLength;
    private final List<TensorInfo> tensors;
    /** Built on the first lookup: validating a header never needs it, so it costs nothing there. */
    private volatile TensorNameIndex byName;
    private final Map<String, String> metadata;

    /**
     * Assembles a header from already validated parts.
     *
     * @param source       the source's name, for messages
     * @param fileSize     the size of the whole file in bytes
     * @param headerLength the declared header length N (padding included)
     * @param tensors      the tensors, in data order, with unique names (copied)
     * @param metadata     the {@code __metadata__} entries in file order (copied); empty when absent
     */
    public SafetensorsHeader(String source, long fileSize, long headerLength, List<TensorInfo> tensors,
                             Map<String, String> metadata) {
        this.source = Objects.requireNonNull(source, "source");
        if (headerLength < 0 || fileSize < 8 + headerLength) {
            throw new IllegalArgumentException("header length " + headerLength + " does not fit file size " + fileSize);
        }
        this.fileSize = fileSize;
        this.headerLength = headerLength;
        this.tensors = Collections.unmodifiableList(new ArrayList<>(tensors));
        this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }

    /** @return the name of the source the header was read from */
    public String source() {
        return source;
    }

    /** @return the tensors ordered by their byte range in the payload (not by their order in the JSON) */
    public List<TensorInfo> tensors() {
        return tensors;
    }

    /**
     * @param name a tensor name
     * @return the tensor of that name, if the header has one
     */
    public Optional<TensorInfo> tensor(String name) {
        TensorNameIndex index = byName;
        if (index == null) {
            // two threads may both build it; either result is the same, and the field is volatile
            index = new TensorNameIndex(tensors);
            byName = index;
        }
        return Optional.ofNullable(index.get(name));
    }

    /** @return the {@code __metadata__} entries in file order; empty when the header has none */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** @return the size of the whole file in bytes */
    public long fileSize() {
        return fileSize;
    }

    /** @return the declared header length N, padding included */
    public long headerLength() {
        return headerLength;
    }

    /** @return {@code 8 + headerLength()}: the file position of the first payload byte */
    public long payloadOffset() {
        return 8 + headerLength;
    }

    /** @return the number of payload bytes: {@code fileSize() - payloadOffset()} */
    public long payloadLength() {
        return fileSize - payloadOffset();
    }

    /** @return whether the payload starts at a multiple of 8, which memory-mapping readers prefer */
    public boolean payloadAligned() {
        return payloadOffset() % 8 == 0;
    }

    @Override
    public String toString() {
        return source + ": " + tensors.size() + " tensors, header " + headerLength + " bytes, payload "
                + payloadLength() + " bytes";
    }
}
