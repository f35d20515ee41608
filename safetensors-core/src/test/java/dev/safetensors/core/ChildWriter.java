package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.RandomAccessSource;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The program {@link ChildJvmWriteTest} runs in a child JVM, where the heap limit or the signal is the point.
 * {@code copy IN OUT}: writes a checkpoint whose one large tensor is the whole of IN, streamed, and a small one.
 * {@code stall OUT}: starts writing a tensor from stdin, says so on stdout, and blocks until killed.
 */
final class ChildWriter {
    private ChildWriter() {
    }

    public static void main(String[] args) throws IOException {
        if (args[0].equals("copy")) {
            Path in = Path.of(args[1]);
            long length = Files.size(in);
            try (RandomAccessSource source = Sources.open(in)) {
                long written = SafetensorsWriter.create().metadata("format", "pt")
                        .tensor("big", DType.U8, new long[] {length}, TensorSource.range(source, 0, length))
                        .tensor("tail", DType.U8, new long[] {3}, new byte[] {1, 2, 3})
                        .writeTo(Path.of(args[2]));
                System.out.println(written + " " + Runtime.getRuntime().maxMemory());
            }
        } else {
            SafetensorsWriter.create().tensor("t", DType.U8, new long[] {1 << 21}, TensorSource.of(1 << 21, () -> {
                System.out.println("writing");
                System.out.flush();
                return Channels.newChannel(System.in);
            })).writeTo(Path.of(args[1]));
        }
    }
}
