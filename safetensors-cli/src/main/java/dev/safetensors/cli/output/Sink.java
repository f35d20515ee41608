package dev.safetensors.cli.output;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.FileSystemException;

/**
 * An output stream whose failures name the output, not the source being read: every write failure becomes a
 * {@link StorageException} with {@link ErrorCode#WRITE_FAILED} for the output's name. A {@link PrintStream} (stdout)
 * never throws; its {@link PrintStream#checkError()} is checked after each write instead, so a full disk or a closed
 * pipe stops the work at once rather than after the whole tensor was read for nothing.
 */
public final class Sink extends FilterOutputStream {
    /** The name standard output goes by in messages. */
    public static final String STDOUT = "standard output";

    private final String name;
    private final PrintStream print;

    private Sink(OutputStream out, String name) {
        super(out);
        this.name = name;
        this.print = out instanceof PrintStream p ? p : null;
    }

    /**
     * @param out  where the bytes go
     * @param name the output's name in messages (a path as typed, or {@link #STDOUT})
     * @return the stream
     */
    public static Sink of(OutputStream out, String name) {
        return new Sink(out, name);
    }

    @Override
    public void write(int b) throws IOException {
        try {
            out.write(b);
        } catch (IOException e) {
            throw failed(e);
        }
        check();
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw failed(e);
        }
        check();
    }

    @Override
    public void flush() throws IOException {
        try {
            out.flush();
        } catch (IOException e) {
            throw failed(e);
        }
        check();
    }

    /** The owner closes the stream below (stdout is never closed here). */
    @Override
    public void close() throws IOException {
        flush();
    }

    private void check() throws StorageException {
        if (print != null && print.checkError()) {
            throw failed(null);
        }
    }

    private StorageException failed(IOException cause) {
        return failure(name, cause);
    }

    /**
     * @param name  the output's name
     * @param cause the failure, or {@code null} when a {@link PrintStream} only said that something failed
     * @return the failure, coded {@link ErrorCode#WRITE_FAILED}
     */
    public static StorageException failure(String name, IOException cause) {
        // a file system's reason alone: the file it names may be a temporary one, and the output is named already
        String reason = cause == null ? "a write failed (a closed pipe or a full disk?)"
                : cause instanceof FileSystemException f && f.getReason() != null ? f.getReason()
                : cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return new StorageException(ErrorCode.WRITE_FAILED, name, "cannot write: " + reason + "; the output is"
                + " incomplete", cause);
    }
}
