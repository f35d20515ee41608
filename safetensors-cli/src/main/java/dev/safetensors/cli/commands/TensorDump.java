package dev.safetensors.cli.commands;

import dev.safetensors.TensorInfo;
import dev.safetensors.core.SafetensorsFile;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import dev.safetensors.cli.output.ProgressBar;

/** Writes one tensor: its stored bytes, or its values widened to float32 as text or little-endian binary. */
final class TensorDump {
    private static final int FLOATS_PER_BLOCK = 16 * 1024;

    private TensorDump() {
    }

    /**
     * @param file     the open file
     * @param t        the tensor
     * @param out      where the bytes go; not closed
     * @param progress told about the bytes written
     * @return the number of bytes written
     * @throws IOException if reading or writing fails
     */
    static long raw(SafetensorsFile file, TensorInfo t, OutputStream out, ProgressBar progress) throws IOException {
        WritableByteChannel target = Channels.newChannel(out);
        WritableByteChannel counted = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                int n = target.write(src);
                progress.advance(n);
                return n;
            }

            @Override
            public boolean isOpen() {
                return target.isOpen();
            }

            @Override
            public void close() {
                // the caller owns the stream
            }
        };
        long n = file.copyTensorTo(t.name(), counted);
        out.flush();
        return n;
    }

    /**
     * @param file   the open file
     * @param t      an F32, F16 or BF16 tensor
     * @param out    where the values go; not closed
     * @param binary {@code true} for little-endian float32, {@code false} for one decimal value per line
     *               ({@link Float#toString}, which reads back to the same float)
     * @return the number of values written (binary: bytes)
     * @throws IOException if reading or writing fails, or the dtype cannot be widened
     */
    static long float32(SafetensorsFile file, TensorInfo t, OutputStream out, boolean binary) throws IOException {
        float[] values = file.readFloat32(t.name());
        if (binary) {
            ByteBuffer block = ByteBuffer.allocate(FLOATS_PER_BLOCK * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < values.length; i += FLOATS_PER_BLOCK) {
                block.clear();
                block.asFloatBuffer().put(values, i, Math.min(FLOATS_PER_BLOCK, values.length - i));
                out.write(block.array(), 0, Math.min(FLOATS_PER_BLOCK, values.length - i) * Float.BYTES);
            }
            out.flush();
            return (long) values.length * Float.BYTES;
        }
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.US_ASCII), 1 << 16);
        for (float v : values) {
            w.write(Float.toString(v));
            w.write('\n');
        }
        w.flush();
        return values.length;
    }
}
