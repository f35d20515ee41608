package dev.safetensors.cli.output;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * Standard output as a {@link PrintStream} that remembers whether a write failed below its buffer, so that a reader
 * that went away ({@code safetensors dump ... | head -3}) ends the command quietly, as it ends {@code cat} or
 * {@code grep}, while a full device stays a reported error. The two are told apart by what standard output is, not by
 * the failure's message: a write to a pipe or a socket can only fail because its reader closed it (the JVM ignores
 * {@code SIGPIPE}, so the write fails with {@code EPIPE}), and only a file or a device can be full.
 */
public final class StandardOutput extends PrintStream {
    /**
     * The exit status after the reader of standard output went away: 128 + 13 ({@code SIGPIPE}), the status a shell
     * reports for {@code cat} or {@code grep} ended by the same closed pipe.
     */
    public static final int CLOSED_PIPE_STATUS = 128 + 13;

    private final FailureMemory memory;
    private final BooleanSupplier isPipe;

    private StandardOutput(FailureMemory memory, BooleanSupplier isPipe) {
        super(new BufferedOutputStream(memory, 1 << 16), false, StandardCharsets.UTF_8);
        this.memory = memory;
        this.isPipe = isPipe;
    }

    /** @return the process's standard output, UTF-8, buffered, judged by {@link PipeProbe#stdout()} */
    public static StandardOutput open() {
        return over(new FileOutputStream(FileDescriptor.out), PipeProbe::stdout);
    }

    /**
     * @param device where the bytes go
     * @param isPipe whether {@code device} is a pipe or a socket, asked only after a write failed
     * @return standard output over {@code device}
     */
    static StandardOutput over(OutputStream device, BooleanSupplier isPipe) {
        return new StandardOutput(new FailureMemory(device), isPipe);
    }

    /** @return whether a write failed because the reader of a pipe (or socket) went away */
    public boolean readerGone() {
        return memory.failed && isPipe.getAsBoolean();
    }

    /** Passes bytes on and remembers that a write failed, which {@link PrintStream} would otherwise swallow. */
    private static final class FailureMemory extends FilterOutputStream {
        private volatile boolean failed;

        FailureMemory(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                failed = true;
                throw e;
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                failed = true;
                throw e;
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                failed = true;
                throw e;
            }
        }
    }
}
