package dev.safetensors.cli;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.StringWriter;

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

    /**
     * The one JSON object a command prints on stdout under {@code --json} when it fails, so a program reading the
     * JSON Lines learns why: {@code source}, {@code file} (the output a write failure names, when there is one),
     * {@code kind} (the command), {@code status}, {@code code} and {@code message}.
     *
     * @param kind   the command, such as {@code reshard}
     * @param source what was read, for messages ({@code Location.display()}, never a secret)
     * @param file   the output file or folder a write failure names, or {@code null}
     * @param f      the failure
     * @return the object, without a line terminator
     */
    static String failure(String kind, String source, String file, Failure f) {
        StringWriter w = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(ObjectWriteContext.empty(), w)) {
            g.writeStartObject();
            g.writeStringProperty("source", source);
            if (file != null) {
                g.writeStringProperty("file", file);
            }
            g.writeStringProperty("kind", kind);
            g.writeStringProperty("status", f.status().json());
            g.writeStringProperty("code", f.code());
            g.writeStringProperty("message", f.message());
            g.writeEndObject();
        }
        return w.toString();
    }
}
