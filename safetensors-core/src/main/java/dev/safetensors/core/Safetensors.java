package dev.safetensors.core;

import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import dev.safetensors.core.internal.header.HeaderReader;

/**
 * One-call header checks. Each method reads the bounded header prefix of a file (one read when the header fits
 * {@link Limits#prefetchBytes()}, two otherwise), validates it against every rule of the policy, and returns the
 * immutable result.
 *
 * <pre>{@code
 * SafetensorsHeader h = Safetensors.readHeader(Path.of("model.safetensors"));
 * for (TensorInfo t : h.tensors()) {
 *     System.out.println(t.name() + " " + t.dtype() + " " + Arrays.toString(t.shape()));
 * }
 * }</pre>
 *
 * <p>Failures are checked exceptions: {@link dev.safetensors.InvalidHeaderException} for a broken rule,
 * {@link dev.safetensors.UnsupportedDtypeException} for a well-formed file with a dtype outside the policy, and
 * plain {@link IOException}s ({@link java.nio.file.NoSuchFileException}, ...) for storage failures. No input makes
 * these methods throw an unchecked exception or allocate more than the policy's header bound. Thread-safe.
 */
public final class Safetensors {
    private Safetensors() {
    }

    /**
     * Reads and validates the header of a local file under the strict {@link Limits#STRICT} policy.
     *
     * @param path the file
     * @return the validated header
     * @throws IOException if the file cannot be read or breaks a rule
     */
    public static SafetensorsHeader readHeader(Path path) throws IOException {
        return readHeader(path, Limits.STRICT);
    }

    /**
     * Reads and validates the header of a local file.
     *
     * @param path   the file
     * @param limits the policy
     * @return the validated header
     * @throws IOException if the file cannot be read or breaks a rule
     */
    public static SafetensorsHeader readHeader(Path path, Limits limits) throws IOException {
        try (RandomAccessSource source = FileSource.open(path)) {
            return readHeader(source, limits);
        }
    }

    /**
     * Reads and validates the header of any source, which stays open.
     *
     * @param source the source
     * @return the validated header
     * @throws IOException if the source cannot be read or breaks a rule
     */
    public static SafetensorsHeader readHeader(RandomAccessSource source) throws IOException {
        return readHeader(source, Limits.STRICT);
    }

    /**
     * Reads and validates the header of any source, which stays open.
     *
     * @param source the source
     * @param limits the policy
     * @return the validated header
     * @throws IOException if the source cannot be read or breaks a rule
     */
    public static SafetensorsHeader readHeader(RandomAccessSource source, Limits limits) throws IOException {
        return HeaderReader.read(Objects.requireNonNull(source, "source"), Objects.requireNonNull(limits, "limits"));
    }

    /**
     * Validates a header that is already in memory, as the bytes of a whole file would be: the 8-byte prefix, the
     * header and the payload. Meant for in-memory files and for benchmarking the validator apart from I/O.
     *
     * @param name   a name for messages
     * @param file   the file's bytes (read in place, not retained)
     * @param limits the policy
     * @return the validated header
     * @throws IOException if the bytes break a rule
     */
    public static SafetensorsHeader readHeader(String name, byte[] file, Limits limits) throws IOException {
        return HeaderReader.parse(Objects.requireNonNull(name, "name"), file, Objects.requireNonNull(limits, "limits"));
    }

    /**
     * Validates header bytes that were obtained some other way (a cache, a previous read), for a file of
     * {@code fileSize} bytes: every rule from 5 on, including the layout against the payload that {@code fileSize}
     * implies. Rules 1 to 4 are checked against {@code fileSize} and {@code header.length}.
     *
     * @param name     a name for messages
     * @param header   exactly the N header bytes that follow the 8-byte prefix (read in place, not retained)
     * @param fileSize the size of the whole file
     * @param limits   the policy
     * @return the validated header
     * @throws IOException if the header breaks a rule
     */
    public static SafetensorsHeader parseHeader(String name, byte[] header, long fileSize, Limits limits)
            throws IOException {
        return HeaderReader.parseHeaderBytes(Objects.requireNonNull(name, "name"), header, fileSize,
                Objects.requireNonNull(limits, "limits"));
    }
}
