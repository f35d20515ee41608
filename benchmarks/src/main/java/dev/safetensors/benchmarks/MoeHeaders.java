package dev.safetensors.benchmarks;

import java.nio.charset.StandardCharsets;

/**
 * Synthetic headers shaped like a large mixture-of-experts checkpoint: names such as
 * {@code model.layers.12.mlp.experts.45.gate_proj.weight}, BF16 matrices, contiguous offsets. Deterministic, so every
 * run measures the same bytes. No {@code __metadata__}, so 50,000 tensors are exactly the strict entry limit.
 */
final class MoeHeaders {
    private static final String[] PROJECTIONS = {"gate_proj", "up_proj", "down_proj"};

    private MoeHeaders() {
    }

    /** A header and the size of the file it describes. */
    record Header(byte[] json, long fileSize) {
    }

    static Header build(int tensors) {
        StringBuilder sb = new StringBuilder(tensors * 120);
        sb.append('{');
        long offset = 0;
        int experts = 64;
        for (int i = 0; i < tensors; i++) {
            int layer = i / (experts * PROJECTIONS.length);
            int expert = (i / PROJECTIONS.length) % experts;
            String proj = PROJECTIONS[i % PROJECTIONS.length];
            long rows = proj.equals("down_proj") ? 2048 : 1408;
            long cols = proj.equals("down_proj") ? 1408 : 2048;
            long bytes = rows * cols * 2;
            sb.append(i == 0 ? "\"" : ",\"").append("model.layers.").append(layer).append(".mlp.experts.").append(expert).append('.')
                    .append(proj).append(".weight\":{\"dtype\":\"BF16\",\"shape\":[").append(rows).append(',')
                    .append(cols).append("],\"data_offsets\":[").append(offset).append(',').append(offset + bytes)
                    .append("]}");
            offset += bytes;
        }
        sb.append('}');
        while (sb.length() % 8 != 0) {
            sb.append(' ');
        }
        byte[] json = sb.toString().getBytes(StandardCharsets.UTF_8);
        return new Header(json, 8L + json.length + offset);
    }
}
