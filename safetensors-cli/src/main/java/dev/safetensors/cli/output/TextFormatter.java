package dev.safetensors.cli.output;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceStatistics;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.TensorTotals;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;

/**
 * The human-readable output: one status line per source ({@code validate}, {@code verify}, failures everywhere)
 * and a summary block per file or checkpoint ({@code inspect}), with readable numbers. Names and metadata from the
 * file are {@link Sanitized}.
 */
public final class TextFormatter {
    private static final int NAME_WIDTH = 200;
    private static final int VALUE_WIDTH = 120;

    private TextFormatter() {
    }

    /**
     * @param r a result
     * @return {@code OK  source: 3 tensors, ...} or {@code INVALID  source: message [CODE]}
     */
    public static String statusLine(SourceResult r) {
        return PlainText.padded(r.status().label(), 11) + " " + name(r) + ": " + r.failure()
                .map(TextFormatter::problem).orElseGet(() -> summary(r));
    }

    /**
     * @param r a result of {@code verify}
     * @return the status line, then every check performed and its outcome, and the computed digest
     */
    public static String verifyLine(SourceResult r) {
        String checks = r.checks().entrySet().stream()
                .map(e -> e.getKey().label() + (e.getValue() ? " ok" : " FAILED"))
                .collect(Collectors.joining(", "));
        String digest = r.sha256().map(h -> "; sha256 " + h + r.sha256ComparedWith().map(w -> " (compared with "
                + w + ")").orElse("")).orElse("");
        String what = r.failure().map(TextFormatter::problem).orElse("all checks passed");
        return PlainText.padded(r.status().label(), 11) + " " + name(r) + ": " + what + "; checks: "
                + (checks.isEmpty() ? "none" : checks) + digest;
    }

    /**
     * @param r       a valid result of {@code inspect}
     * @param tensors whether to add the table of tensors
     * @return the summary block, ending with a blank line
     */
    public static String inspectBlock(SourceResult r, boolean tensors) {
        StringBuilder sb = new StringBuilder();
        TensorTotals t = r.totals().orElseThrow();
        boolean checkpoint = r.kind() == SourceResult.Kind.CHECKPOINT;
        sb.append(name(r)).append(!checkpoint ? "" : r.checks().containsKey(Check.INDEX) ? "  (sharded checkpoint)"
                : "  (checkpoint)").append('\n');
        row(sb, "status", r.status().label() + " (checks: " + r.checks().keySet().stream().map(Check::label)
                .collect(Collectors.joining(", ")) + ")");
        r.attributes().forEach((k, v) -> {
            if (k.equals(SourceIdentity.REPOSITORY) || k.equals(SourceIdentity.REVISION)) {
                row(sb, k, Sanitized.line(v, VALUE_WIDTH));
            }
        });
        if (checkpoint) {
            row(sb, "shards", Readable.plural(r.shardCount(), "shard"));
        }
        row(sb, "tensors", Readable.plural(t.tensors(), "tensor") + ", " + parameters(t.parameters())
                + (t.parameters() < 1000 ? "" : " (" + PlainText.grouped(t.parameters()) + ")"));
        r.parameterCounting().ifPresent(how -> row(sb, "parameters", Sanitized.line(how, VALUE_WIDTH)));
        boolean first = true;
        for (Map.Entry<DType, TensorTotals.PerDtype> e : t.byDtype().entrySet()) {
            TensorTotals.PerDtype d = e.getValue();
            row(sb, first ? "dtypes" : "", PlainText.padded(e.getKey().toString(), 7) + " "
                    + PlainText.padded(Readable.plural(d.tensors(), "tensor"), 12) + " "
                    + PlainText.padded(parameters(d.parameters()), 18) + " " + Readable.bytes(d.bytes()));
            first = false;
        }
        row(sb, "size", Readable.bytes(t.fileBytes()) + " (" + PlainText.grouped(t.fileBytes())
                + " bytes): header " + Readable.bytes(t.headerBytes()) + ", payload " + Readable.bytes(t.payloadBytes())
                + r.header().map(h -> h.payloadAligned() ? ", payload 8-byte aligned"
                        : ", payload NOT 8-byte aligned (starts at byte " + h.payloadOffset() + ")").orElse(""));
        r.indexTotalSize().ifPresent(n -> row(sb, "total_size", Readable.bytes(n) + " (" + PlainText.grouped(n)
                + " bytes of tensors, as the index declares)"));
        first = true;
        for (Map.Entry<String, String> m : r.metadata().entrySet()) {
            row(sb, first ? "metadata" : "", Sanitized.line(m.getKey(), NAME_WIDTH) + ": "
                    + Sanitized.line(m.getValue(), VALUE_WIDTH));
            first = false;
        }
        if (first) {
            row(sb, "metadata", "none");
        }
        // the checkpoint's own reads and its shards' together: what inspecting it cost
        row(sb, "cost", cost(r.cost().plus(r.shardsCost())));
        if (tensors && r.header().isPresent()) {
            table(sb, r.header().get());
        }
        return sb.toString();
    }

    private static void table(StringBuilder sb, SafetensorsHeader h) {
        List<TensorInfo> list = h.tensors();
        int width = 4;
        for (TensorInfo t : list) {
            width = Math.max(width, Math.min(NAME_WIDTH, Sanitized.line(t.name(), NAME_WIDTH).length()));
        }
        tableRow(sb, width, "NAME", "DTYPE", "SHAPE", "BYTES");
        for (TensorInfo t : list) {
            tableRow(sb, width, Sanitized.line(t.name(), NAME_WIDTH), t.dtype().toString(),
                    Arrays.toString(t.shape()), Readable.bytes(t.byteLength()));
        }
    }

    private static void tableRow(StringBuilder sb, int width, String name, String dtype, String shape, String bytes) {
        sb.append("  ").append(PlainText.padded(name, width)).append("  ").append(PlainText.padded(dtype, 7))
                .append("  ").append(PlainText.padded(shape, 20)).append("  ")
                .append(PlainText.rightAligned(bytes, 10)).append(System.lineSeparator());
    }

    private static void row(StringBuilder sb, String label, String value) {
        sb.append("  ").append(PlainText.padded(label, 10)).append("  ").append(value).append(System.lineSeparator());
    }

    private static String summary(SourceResult r) {
        TensorTotals t = r.totals().orElse(null);
        String checks = r.checks().keySet().stream().map(Check::label).collect(Collectors.joining(", "));
        if (t == null) {
            return "checks passed: " + checks;
        }
        String holds = Readable.plural(t.tensors(), "tensor") + ", " + parameters(t.parameters())
                + ", " + Readable.bytes(t.fileBytes());
        if (r.kind() == SourceResult.Kind.CHECKPOINT) {
            return "sharded checkpoint of " + Readable.plural(r.shardCount(), "shard") + ", " + holds
                    + " (checks: " + checks + ")";
        }
        return holds;
    }

    /** A parameter count: {@code 1 parameter}, {@code 7.6 B parameters}. */
    private static String parameters(long n) {
        return Readable.count(n) + (n == 1 ? " parameter" : " parameters");
    }

    private static String problem(Failure f) {
        return Sanitized.line(f.message(), 1000) + " [" + f.code() + "]";
    }

    /** Exchanges are shown only when redirects or retries made them more than the reads. */
    private static String cost(SourceStatistics s) {
        String exchanges = s.exchanges() > s.requests() ? " (" + Readable.plural(s.exchanges(), "HTTP exchange") + ")"
                : "";
        return Readable.plural(s.requests(), "read request") + exchanges + ", " + Readable.bytes(s.bytesRead())
                + " read";
    }

    private static String name(SourceResult r) {
        return Sanitized.line(r.source(), 400);
    }
}
