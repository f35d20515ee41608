package dev.safetensors.fuzz.reference;

import java.util.List;
import java.util.Map;

/**
 * What the reference checker concluded about one file.
 *
 * @param verdict  valid, unsupported or invalid
 * @param reason   the broken rule or the unsupported dtype, in words; empty when valid
 * @param tensors  the tensor entries in document order when the verdict is not invalid, else empty
 * @param metadata the {@code __metadata__} entries in document order when the verdict is not invalid, else empty
 */
public record Judgement(Verdict verdict, String reason, List<ReferenceTensor> tensors, Map<String, String> metadata) {
    static Judgement invalid(Rejection r) {
        return new Judgement(Verdict.INVALID, r.getMessage(), List.of(), Map.of());
    }
}
