package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.CheckpointMetadata;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code inspect} of a Hub repository: the library's one-call metadata ({@link CheckpointMetadata}) for each
 * checkpoint the repository holds (or the one {@code --path} names), printed as a block of text or one JSON object
 * per checkpoint: repository, commit, folder, file, each shard's header sizes, tensors, parameters by dtype (derived
 * from {@code config.json}'s {@code quantization_config} when it declares one, and saying so), bytes by dtype, and
 * the requests made. A failure is one status line (or JSON object) with its code, as for any source.
 */
final class HubInspection {
    private static final JsonFactory JSON = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
    private static final int VALUE_WIDTH = 200;

    private HubInspection() {
    }

    /**
     * @param source  the repository location as typed
     * @param folder  the {@code --path} folder, or {@code null} for every checkpoint
     * @param json    whether to print JSON Lines
     * @param tensors whether to list every tensor
     * @param out     stdout
     * @param err     stderr, for failures in text mode
     * @return the exit code
     */
    static int run(String source, String folder, boolean json, boolean tensors, PrintStream out, PrintStream err) {
        List<CheckpointMetadata> all;
        try {
            all = folder == null ? CheckpointMetadata.readAll(source)
                    : List.of(CheckpointMetadata.read(source, folder));
        } catch (IOException | RuntimeException e) {
            Failure f = Failure.from(e, source);
            SourceResult r = SourceResult.builder(source, SourceResult.Kind.CHECKPOINT).fail(f).build();
            if (json) {
                out.println(JsonFormatter.line(r, false));
            } else {
                err.println(TextFormatter.statusLine(r));
            }
            return r.status().exitCode();
        }
        for (CheckpointMetadata m : all) {
            out.println(json ? json(source, m, tensors) : text(source, m, tensors));
        }
        return Status.VALID.exitCode();
    }

    private static String name(String source, CheckpointMetadata m) {
        String folder = m.files().folder();
        return folder.isEmpty() ? source : (source.endsWith("/") ? source : source + "/") + folder;
    }

    static String text(String source, CheckpointMetadata m, boolean tensors) {
        StringBuilder sb = new StringBuilder();
        int shards = m.files().shards().size();
        sb.append(Sanitized.line(name(source, m), 400)).append(m.files().isSharded()
                ? "  (sharded checkpoint of " + Readable.plural(shards, "shard") + ")" : "  (single file)").append('\n');
        row(sb, "status", m.files().isSharded() ? "OK (checks: index, headers, consistency)" : "OK (checks: header)");
        m.files().attributes().forEach((k, v) -> row(sb, k, Sanitized.line(v, VALUE_WIDTH)));
        row(sb, "folder", m.files().folder().isEmpty() ? "(root)" : Sanitized.line(m.files().folder(), VALUE_WIDTH));
        row(sb, "file", Sanitized.line(m.files().file(), VALUE_WIDTH));
        row(sb, "tensors", Readable.plural(m.tensorCount(), "tensor") + ", " + Readable.count(m.totalParameters())
                + " parameters" + String.format(Locale.ROOT, " (%,d)", m.totalParameters()) + ", "
                + Readable.bytes(m.totalBytes()));
        row(sb, "parameters", m.counting());
        boolean first = true;
        for (Map.Entry<DType, Long> e : m.bytes().entrySet()) {
            long parameters = m.parameters().getOrDefault(e.getKey(), 0L);
            row(sb, first ? "dtypes" : "", String.format(Locale.ROOT, "%-7s %-18s %s", e.getKey(),
                    Readable.count(parameters) + " parameters", Readable.bytes(e.getValue())));
            first = false;
        }
        for (int i = 0; i < shards; i++) {
            SafetensorsHeader h = m.headers().get(i);
            row(sb, i == 0 ? "files" : "", Sanitized.line(m.files().shards().get(i), VALUE_WIDTH) + ": "
                    + Readable.plural(h.tensors().size(), "tensor") + ", header " + Readable.bytes(h.headerLength())
                    + ", " + Readable.bytes(h.fileSize()));
        }
        row(sb, "cost", Readable.plural(m.cost().requests(), "read request") + ", "
                + Readable.bytes(m.cost().bytesRead()) + " read");
        if (tensors) {
            for (SafetensorsHeader h : m.headers()) {
                for (TensorInfo t : h.tensors()) {
                    sb.append(String.format(Locale.ROOT, "  %-60s  %-7s  %-20s  %10s%n", Sanitized.line(t.name(), 200),
                            t.dtype(), Arrays.toString(t.shape()), Readable.bytes(t.byteLength())));
                }
            }
        }
        return sb.toString();
    }

    static String json(String source, CheckpointMetadata m, boolean tensors) {
        StringWriter w = new StringWriter(1024);
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), w)) {
            g.writeStartObject();
            g.writeStringProperty("source", name(source, m));
            g.writeStringProperty("kind", "checkpoint");
            g.writeStringProperty("status", Status.VALID.json());
            m.files().attributes().forEach(g::writeStringProperty);
            g.writeStringProperty("folder", m.files().folder());
            g.writeStringProperty("file", m.files().file());
            g.writeBooleanProperty("sharded", m.files().isSharded());
            g.writeNumberProperty("shard_count", m.files().shards().size());
            g.writeNumberProperty("tensor_count", m.tensorCount());
            g.writeNumberProperty("parameters", m.totalParameters());
            g.writeBooleanProperty("parameters_from_config", m.fromConfig());
            g.writeStringProperty("parameter_counting", m.counting());
            g.writeNumberProperty("bytes", m.totalBytes());
            g.writeName("dtypes");
            g.writeStartObject();
            for (Map.Entry<DType, Long> e : m.bytes().entrySet()) {
                g.writeName(e.getKey().name());
                g.writeStartObject();
                g.writeNumberProperty("parameters", m.parameters().getOrDefault(e.getKey(), 0L));
                g.writeNumberProperty("bytes", e.getValue());
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeName("files");
            g.writeStartArray();
            for (int i = 0; i < m.headers().size(); i++) {
                SafetensorsHeader h = m.headers().get(i);
                g.writeStartObject();
                g.writeStringProperty("source", m.files().shards().get(i));
                g.writeNumberProperty("file_bytes", h.fileSize());
                g.writeNumberProperty("header_bytes", h.headerLength());
                g.writeNumberProperty("tensor_count", h.tensors().size());
                if (tensors) {
                    g.writeName("tensors");
                    g.writeStartArray();
                    for (TensorInfo t : h.tensors()) {
                        g.writeStartObject();
                        g.writeStringProperty("name", t.name());
                        g.writeStringProperty("dtype", t.dtype().name());
                        g.writeName("shape");
                        g.writeArray(t.shape(), 0, t.shape().length);
                        g.writeNumberProperty("bytes", t.byteLength());
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberProperty("requests", m.cost().requests());
            g.writeNumberProperty("bytes_read", m.cost().bytesRead());
            g.writeNumberProperty("exchanges", m.cost().exchanges());
            g.writeEndObject();
        }
        return w.toString();
    }

    private static void row(StringBuilder sb, String label, String value) {
        sb.append(String.format(Locale.ROOT, "  %-10s  %s%n", label, value));
    }
}
