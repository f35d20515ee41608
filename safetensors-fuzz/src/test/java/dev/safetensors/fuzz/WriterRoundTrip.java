package dev.safetensors.fuzz;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.fuzz.reference.Verdict;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * Writes an accepted file's content back with {@link SafetensorsWriter} (tensors in data order, so the canonical
 * offsets are the original ones) and requires: the writer accepts it; the output is judged valid by the validator,
 * every entry point and the reference ({@link FileJudge}); it holds the same tensors, metadata in the same order and
 * the same payload bytes; its header is 8-aligned; the writer's own {@code header()} is what a reader sees; and
 * writing again gives the same bytes.
 */
final class WriterRoundTrip {
    private WriterRoundTrip() {
    }

    /**
     * @param f32AsFloats pass F32 tensors as {@code float[]} (every bit must survive) instead of as bytes
     */
    static void check(byte[] file, SafetensorsHeader accepted, PolicyPair policy, boolean f32AsFloats) {
        SafetensorsWriter writer = SafetensorsWriter.create(policy.limits()).metadata(accepted.metadata());
        for (TensorInfo t : accepted.tensors()) {
            byte[] bytes = Arrays.copyOfRange(file, (int) (accepted.payloadOffset() + t.begin()),
                    (int) (accepted.payloadOffset() + t.end()));
            if (f32AsFloats && t.dtype() == DType.F32) {
                float[] values = new float[bytes.length / 4];
                ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
                writer.tensor(t.name(), t.shape(), values);
            } else {
                writer.tensor(t.name(), t.dtype(), t.shape(), bytes);
            }
        }
        byte[] written;
        SafetensorsHeader promised;
        try {
            promised = writer.header();
            written = write(writer);
            require(Arrays.equals(written, write(writer)), "writing twice gave different bytes");
        } catch (IOException | RuntimeException e) {
            throw new AssertionError("the writer refused what the reader accepted under " + policy.name() + ": "
                    + e.getMessage() + "\nfile: " + Printable.bytes(file), e);
        }
        ValidatorRun reread = FileJudge.judge(written, policy);
        require(reread.verdict() == Verdict.VALID, "the writer's output is refused: " + reread);
        SafetensorsHeader h = reread.header();
        require(h.tensors().equals(accepted.tensors()), "tensors differ: " + h.tensors() + " / " + accepted.tensors());
        require(List.copyOf(h.metadata().entrySet()).equals(List.copyOf(accepted.metadata().entrySet())),
                "metadata differs: " + h.metadata() + " / " + accepted.metadata());
        require(h.headerLength() % 8 == 0, "header length " + h.headerLength() + " is not a multiple of 8");
        require(Arrays.equals(Arrays.copyOfRange(written, (int) h.payloadOffset(), written.length),
                Arrays.copyOfRange(file, (int) accepted.payloadOffset(), file.length)), "payload bytes differ");
        require(promised.tensors().equals(h.tensors()) && promised.metadata().equals(h.metadata())
                && promised.fileSize() == h.fileSize() && promised.headerLength() == h.headerLength(),
                "SafetensorsWriter.header() differs from what a reader sees");
    }

    private static byte[] write(SafetensorsWriter writer) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = writer.writeTo(out);
        require(n == out.size(), "writeTo returned " + n + " but wrote " + out.size() + " bytes");
        return out.toByteArray();
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("write-back: " + what);
        }
    }
}
