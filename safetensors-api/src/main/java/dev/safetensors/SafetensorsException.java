package dev.safetensors;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The root of every failure this library reports about a file's content or its storage. It is a checked
 * {@link IOException}, so callers handle it where they already handle I/O.
 *
 * <p>The message names the source, the rule that was broken and, where known, the tensor and the byte
 * offset inside the header, followed by the code in brackets, for example
 * {@code model.safetensors: tensor "w": data_offsets end 12 is before begin 16 [INVALID_OFFSETS]}.
 * Programs should match on {@link #code()}, never on the message.
 *
 * <p>Instances are immutable and safe to share between threads.
 */
public abstract class SafetensorsException extends IOException implements ErrorCoded {
    private static final long serialVersionUID = 1L;

    /** Why it failed. */
    private final ErrorCode code;
    /** The source's redacted name. */
    private final String source;
    /** What was wrong, without the source's name or the code. */
    private final String detail;
    /** The tensor concerned, or {@code null}. */
    private final String tensor;
    /** The byte offset inside the header, or -1. */
    private final long headerOffset;

    /**
     * Creates an exception.
     *
     * @param code         why it failed
     * @param source       the source's {@link RandomAccessSource#name()}, never a credential
     * @param detail       what is wrong, in words, without the source or code
     * @param tensor       the tensor it applies to, or {@code null}
     * @param headerOffset the byte offset inside the header JSON it applies to, or {@code -1}
     */
    protected SafetensorsException(ErrorCode code, String source, String detail, String tensor, long headerOffset) {
        this(code, source, detail, tensor, headerOffset, null);
    }

    /**
     * Creates an exception with a cause.
     *
     * @param code         why it failed
     * @param source       the source's {@link RandomAccessSource#name()}, never a credential
     * @param detail       what is wrong, in words, without the source or code
     * @param tensor       the tensor it applies to, or {@code null}
     * @param headerOffset the byte offset inside the header JSON it applies to, or {@code -1}
     * @param cause        the underlying failure, or {@code null}
     */
    protected SafetensorsException(ErrorCode code, String source, String detail, String tensor, long headerOffset,
                                   Throwable cause) {
        super(format(code, source, detail, tensor, headerOffset), cause);
        this.code = Objects.requireNonNull(code, "code");
        this.source = source == null ? "<unnamed>" : source;
        this.detail = detail;
        this.tensor = tensor;
        this.headerOffset = headerOffset;
    }

    private static String format(ErrorCode code, String source, String detail, String tensor, long offset) {
        StringBuilder sb = new StringBuilder();
        sb.append(source == null ? "<unnamed>" : source).append(": ");
        if (tensor != null) {
            sb.append("tensor \"").append(printable(tensor)).append("\": ");
        }
        sb.append(detail);
        if (offset >= 0) {
            sb.append(" (at header byte ").append(offset).append(')');
        }
        return sb.append(" [").append(code).append(']').toString();
    }

    /** Keeps messages on one line and short, whatever a hostile name contains. */
    private static String printable(String name) {
        StringBuilder sb = new StringBuilder(Math.min(name.length(), 120));
        for (int i = 0; i < name.length() && sb.length() < 100; i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (sb.length() >= 100 && name.length() > 100) {
            sb.append("...");
        }
        return sb.toString();
    }

    /** @return why it failed; never {@code null} */
    @Override
    public ErrorCode code() {
        return code;
    }

    /** @return the name of the source that failed, as {@link RandomAccessSource#name()} gave it */
    public String source() {
        return source;
    }

    /** @return what is wrong, without the source name, the location or the code */
    public String detail() {
        return detail;
    }

    /** @return the tensor the failure applies to, if there is one */
    public Optional<String> tensor() {
        return Optional.ofNullable(tensor);
    }

    /** @return the byte offset inside the header JSON the failure applies to, if known */
    public OptionalLong headerOffset() {
        return headerOffset < 0 ? OptionalLong.empty() : OptionalLong.of(headerOffset);
    }
}
