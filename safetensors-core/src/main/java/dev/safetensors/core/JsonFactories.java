package dev.safetensors.core;

import dev.safetensors.Limits;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.json.JsonFactory;

/**
 * The Jackson streaming factories the validator parses with: strict JSON (Jackson's defaults: no comments, single
 * quotes, trailing commas, NaN or leading zeros), the nesting bound of the policy enforced by the tokenizer itself,
 * and no other Jackson bound below what the header size already implies. Property names are canonicalized (that
 * keeps Jackson on its byte-level UTF-8 parser, which reports byte offsets and is the fastest) but not interned:
 * header names are nearly all unique, and interning them would only fill the JVM's string table.
 */
final class JsonFactories {
    private static final JsonFactory STRICT = create(Limits.DEFAULT);
    private static final JsonFactory OFFICIAL = create(Limits.OFFICIAL);

    private JsonFactories() {
    }

    /** @return a factory for {@code limits}, shared for the two presets */
    static JsonFactory forLimits(Limits limits) {
        if (limits == Limits.DEFAULT) {
            return STRICT;
        }
        if (limits == Limits.OFFICIAL) {
            return OFFICIAL;
        }
        return create(limits);
    }

    private static JsonFactory create(Limits limits) {
        int headerBound = (int) Math.min(Integer.MAX_VALUE, limits.maxHeaderBytes());
        StreamReadConstraints constraints = StreamReadConstraints.builder()
                .maxNestingDepth(limits.maxDepth())
                .maxStringLength(headerBound)
                .maxNameLength(headerBound)
                .maxNumberLength(headerBound)
                .build();
        return JsonFactory.builder()
                .streamReadConstraints(constraints)
                .disable(TokenStreamFactory.Feature.INTERN_PROPERTY_NAMES)
                .build();
    }
}
