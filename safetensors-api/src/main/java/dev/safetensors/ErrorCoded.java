package dev.safetensors;

/**
 * A failure that carries an {@link ErrorCode}. Every exception this library throws implements it, including the
 * ones that keep a JDK type ({@link SourceNotFoundException} is a {@link java.nio.file.NoSuchFileException}), so
 * {@link ErrorCode#of(Throwable)} answers for any of them without reading a message.
 */
public interface ErrorCoded {
    /** @return why it failed; never {@code null} */
    ErrorCode code();
}
