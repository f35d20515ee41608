package dev.safetensors.cli.commands;

import dev.safetensors.TensorInfo;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import dev.safetensors.cli.output.CommandJson;
import dev.safetensors.cli.output.Readable;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/**
 * What {@code reshard} prints. Text: one line per file written, each tensor's SHA-256 under its shard, and a summary.
 * JSON Lines: one object per file written ({@code output}, {@code kind} {@code output_shard} or {@code output_index}:
 * a {@code shard} is always an input's, as in {@code validate}; an output shard lists its tensors with {@code sha256}
 * and {@code verified}), then the {@code summary} object ({@code command} {@code reshard}, {@code source} what was
 * read). A failure is one line on stderr, or with {@code --json} a summary object with {@code status}, {@code code},
 * {@code message}, {@code source} (the file whose read failed, or the checkpoint) and, for a write failure,
 * {@code output}.
 */
final class ReshardReport {
    /**
     * A tensor as it landed.
     *
     * @param info     as the written shard's header says
     * @param sha256   the digest of the bytes read back from the shard
     * @param verified whether it equals the digest of the bytes read from the source
     */
    record Landed(TensorInfo info, String sha256, boolean verified) {
    }

    private final PrintStream out;
    private final boolean json;

    /**
     * @param out  stdout
     * @param json whether to print JSON Lines
     */
    ReshardReport(PrintStream out, boolean json) {
        this.out = out;
        this.json = json;
    }

    /**
     * @param file    a shard (a path, or a store object's display form), and its tensors
     * @param size    its size in bytes, or -1 when it was not written
     * @param tensors its tensors as read back (from a store: as its header says, each verified by the store's
     *                checksum of the object)
     * @param written whether it was renamed into place ({@code false}: its read-back failed, nothing was replaced)
     */
    void shard(String file, long size, List<Landed> tensors, boolean written) {
        if (json) {
            boolean verified = tensors.stream().allMatch(Landed::verified);
            line(g -> {
                g.writeStringProperty("output", file);
                g.writeStringProperty("kind", "output_shard");
                // valid: in place, and every tensor read back as it was read from the source
                g.writeStringProperty("status", (written && verified ? Status.VALID : Status.INVALID).json());
                if (size < 0) {
                    g.writeNullProperty("size");
                } else {
                    g.writeNumberProperty("size", size);
                }
                g.writeBooleanProperty("written", written);
                g.writeName("tensors");
                g.writeStartArray();
                for (Landed t : tensors) {
                    g.writeStartObject();
                    g.writeStringProperty("name", t.info().name());
                    g.writeStringProperty("dtype", t.info().dtype().name());
                    g.writeName("shape");
                    g.writeArray(t.info().shape(), 0, t.info().shape().length);
                    g.writeNumberProperty("bytes", t.info().byteLength());
                    g.writeStringProperty("sha256", t.sha256());
                    g.writeBooleanProperty("verified", t.verified());
                    g.writeEndObject();
                }
                g.writeEndArray();
            });
            return;
        }
        if (written) {
            out.printf(Locale.ROOT, "wrote %s  %s, %s%n", Sanitized.line(file, 400),
                    Readable.plural(tensors.size(), "tensor"), Readable.bytes(size));
        } else {
            out.printf(Locale.ROOT, "NOT written %s  %s (read back before the rename)%n",
                    Sanitized.line(file, 400), Readable.plural(tensors.size(), "tensor"));
        }
        for (Landed t : tensors) {
            out.printf(Locale.ROOT, "  sha256 %s %s  %s %s %s%n", t.sha256(), t.verified() ? "ok" : "MISMATCH",
                    Sanitized.line(t.info().name(), 200), t.info().dtype(), Arrays.toString(t.info().shape()));
        }
    }

    /**
     * @param file the index written (a path, or a store object's display form)
     * @param size its size in bytes
     */
    void index(String file, long size) {
        if (json) {
            line(g -> {
                g.writeStringProperty("output", file);
                g.writeStringProperty("kind", "output_index");
                g.writeStringProperty("status", Status.VALID.json());
                g.writeNumberProperty("size", size);
            });
        } else {
            out.printf(Locale.ROOT, "wrote %s  index of the shards%n", Sanitized.line(file, 400));
        }
    }

    /**
     * The closing summary of a reshard that read its source.
     *
     * @param source     what was read
     * @param files      the files written
     * @param tensors    the tensors copied
     * @param bytes      the bytes of the tensors copied
     * @param mismatches the tensors whose bytes did not land as read
     * @param requests   the read requests made of the source
     */
    void summary(String source, int files, int tensors, long bytes, int mismatches, long requests) {
        if (json) {
            Status status = mismatches == 0 ? Status.VALID : Status.INVALID;
            out.println(CommandJson.summary("reshard", status, status.exitCode(), g -> {
                g.writeStringProperty("source", source);
                g.writeNumberProperty("file_count", files);
                g.writeNumberProperty("tensor_count", tensors);
                // the tensors' bytes (an index's total_size), not a file's size: each output line has its own
                g.writeNumberProperty("tensor_bytes", bytes);
                g.writeBooleanProperty("verified", mismatches == 0);
                g.writeNumberProperty("mismatches", mismatches);
                g.writeNumberProperty("requests", requests);
            }));
        } else if (mismatches == 0) {
            out.printf(Locale.ROOT, "resharded %s: %s, %s in %s; every output tensor's SHA-256 equals its"
                    + " input's%n", Sanitized.line(source, 400), Readable.plural(tensors, "tensor"),
                    Readable.bytes(bytes), Readable.plural(files, "file"));
        } else {
            out.printf(Locale.ROOT, "resharded %s: %s of %s did NOT land as read (SHA-256 mismatch); nothing was"
                    + " replaced%n",
                    Sanitized.line(source, 400), Readable.plural(mismatches, "tensor"), Readable.count(tensors));
        }
        out.flush();
    }

    /**
     * A reshard that failed before it wrote anything, or while writing.
     *
     * @param source what was read: the checkpoint, or the file of it whose read failed
     * @param output the output file or folder a write failure names, or {@code null}
     * @param f      the failure
     */
    void failure(String source, String output, Failure f) {
        if (json) {
            out.println(CommandJson.failure("reshard", source, output, f));
            out.flush();
        }
    }

    private void line(CommandJson.Body body) {
        out.println(CommandJson.object(body));
        out.flush();
    }
}
