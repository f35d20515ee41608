package dev.safetensors.cli.output;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.TensorTotals;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

import java.io.StringWriter;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import dev.safetensors.cli.results.SourceResult;

/**
 * The machine output: one JSON object per result, on one line (JSON Lines). Every field of the schema is always
 * present, {@code null} when unknown, except {@code code} and {@code message} (only when not valid), the shard and
 * checkpoint fields, {@code sha256} (only when computed), {@code sha256_compared_with} (only when compared) and
 * {@code tensors} (only with {@code --tensors}). {@code size} is the object's size in bytes (a checkpoint's: the sum
 * over its shards); {@code requests}, {@code bytes_read} and {@code exchanges} are what this result alone cost (a
 * checkpoint's: its index and listing, never its shards again). The vocabulary is documented in docs/cli.md and
 * pinned by docs/cli.schema.json.
 */
final class JsonFormatter {
    private static final JsonFactory JSON = CommandJson.FACTORY;

    private JsonFormatter() {
    }

    /**
     * @param r       a result
     * @param tensors whether to list the tensors of a file or shard
     * @return the JSON object, without a line terminator
     */
    static String line(SourceResult r, boolean tensors) {
        StringWriter w = new StringWriter(512);
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), w)) {
            g.writeStartObject();
            g.writeStringProperty("source", r.source());
            g.writeStringProperty("kind", r.kind().name().toLowerCase(Locale.ROOT));
            g.writeStringProperty("status", r.status().json());
            r.failure().ifPresent(f -> {
                g.writeStringProperty("code", f.code().name());
                g.writeStringProperty("message", f.message());
            });
            TensorTotals t = r.totals().orElse(null);
            number(g, "size", r.fileBytes());
            number(g, "header_bytes", t == null ? OptionalLong.empty() : OptionalLong.of(t.headerBytes()));
            number(g, "payload_bytes", t == null ? OptionalLong.empty() : OptionalLong.of(t.payloadBytes()));
            g.writeName("payload_aligned");
            if (r.header().isPresent()) {
                g.writeBoolean(r.header().get().payloadAligned());
            } else {
                g.writeNull();
            }
            number(g, "tensor_count", t == null ? OptionalLong.empty() : OptionalLong.of(t.tensors()));
            number(g, "parameters", t == null ? OptionalLong.empty() : OptionalLong.of(t.parameters()));
            g.writeName("dtypes");
            if (t == null) {
                g.writeNull();
            } else {
                g.writeStartObject();
                for (Map.Entry<DType, TensorTotals.PerDtype> e : t.byDtype().entrySet()) {
                    g.writeName(e.getKey().name());
                    g.writeStartObject();
                    g.writeNumberProperty("tensors", e.getValue().tensors());
                    g.writeNumberProperty("parameters", e.getValue().parameters());
                    g.writeNumberProperty("bytes", e.getValue().bytes());
                    g.writeEndObject();
                }
                g.writeEndObject();
            }
            strings(g, "metadata", r.metadata());
            g.writeName("checks");
            g.writeStartObject();
            r.checks().forEach((check, passed) -> g.writeStringProperty(check.label(), passed ? "pass" : "fail"));
            g.writeEndObject();
            g.writeNumberProperty("requests", r.cost().requests());
            g.writeNumberProperty("bytes_read", r.cost().bytesRead());
            g.writeNumberProperty("exchanges", r.cost().exchanges());
            strings(g, "attributes", r.attributes());
            r.checkpoint().ifPresent(c -> g.writeStringProperty("checkpoint", c));
            if (r.kind() == SourceResult.Kind.CHECKPOINT && r.shardCount() >= 0) {
                g.writeNumberProperty("shard_count", r.shardCount());
            }
            r.indexTotalSize().ifPresent(n -> g.writeNumberProperty("index_total_size", n));
            r.parameterCounting().ifPresent(how -> g.writeStringProperty("parameter_counting", how));
            r.sha256().ifPresent(h -> g.writeStringProperty("sha256", h));
            r.sha256ComparedWith().ifPresent(with -> g.writeStringProperty("sha256_compared_with", with));
            if (tensors && r.header().isPresent()) {
                tensors(g, r.header().get());
            }
            g.writeEndObject();
        }
        return w.toString();
    }

    private static void tensors(JsonGenerator g, SafetensorsHeader header) {
        g.writeName("tensors");
        g.writeStartArray();
        for (TensorInfo t : header.tensors()) {
            g.writeStartObject();
            g.writeStringProperty("name", t.name());
            g.writeStringProperty("dtype", t.dtype().name());
            g.writeName("shape");
            g.writeStartArray();
            for (long d : t.shape()) {
                g.writeNumber(d);
            }
            g.writeEndArray();
            g.writeName("data_offsets");
            g.writeStartArray();
            g.writeNumber(t.begin());
            g.writeNumber(t.end());
            g.writeEndArray();
            g.writeNumberProperty("bytes", t.byteLength());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void number(JsonGenerator g, String name, OptionalLong value) {
        g.writeName(name);
        if (value.isPresent()) {
            g.writeNumber(value.getAsLong());
        } else {
            g.writeNull();
        }
    }

    private static void strings(JsonGenerator g, String name, Map<String, String> map) {
        g.writeName(name);
        g.writeStartObject();
        map.forEach(g::writeStringProperty);
        g.writeEndObject();
    }
}
