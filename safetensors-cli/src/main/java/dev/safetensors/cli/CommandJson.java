package dev.safetensors.cli;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

/** The command's one JSON set-up, for everything it writes (results, reports, manifests) and the manifests it reads. */
final class CommandJson {
    /**
     * Writes ASCII only (other characters as {@code \}u escapes), so output reads the same whatever the terminal's
     * or the consumer's encoding; reads with duplicate names refused.
     */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private CommandJson() {
    }
}
