package dev.safetensors.cli.output;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.StringWriter;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/**
 * The command's one JSON set-up, for everything it writes (results, reports, manifests) and the manifests it reads,
 * and the objects every subcommand shares under {@code --json}: the closing {@code summary} and the failure of a
 * whole run. The vocabulary (one name per thing across subcommands) is documented in docs/cli.md and pinned by
 * docs/cli.schema.json.
 */
public final class CommandJson {
    /**
     * Writes ASCII only (other characters as {@code \}u escapes), so output reads the same whatever the terminal's
     * or the consumer's encoding; reads with duplicate names refused.
     */
    public static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** The {@code kind} of the object that closes a run. */
    static final String SUMMARY = "summary";

    /** Writes the fields of one object. */
    public interface Body {
        /** @param g the generator, inside the object */
        void write(JsonGenerator g);
    }

    private CommandJson() {
    }

    /**
     * @param body the object's fields
     * @return one JSON object, without a line terminator
     */
    public static String object(Body body) {
        StringWriter w = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(ObjectWriteContext.empty(), w)) {
            g.writeStartObject();
            body.write(g);
            g.writeEndObject();
        }
        return w.toString();
    }

    /**
     * The object that closes a run under {@code --json}: {@code kind} {@code summary}, {@code command},
     * {@code status} (the worst verdict) and {@code exit_code}, then what the command adds.
     *
     * @param command  the subcommand, such as {@code validate}
     * @param status   the worst verdict of the run
     * @param exitCode the process's exit status
     * @param more     the command's own fields
     * @return the object, without a line terminator
     */
    public static String summary(String command, Status status, int exitCode, Body more) {
        return object(g -> {
            g.writeStringProperty("kind", SUMMARY);
            g.writeStringProperty("command", command);
            g.writeStringProperty("status", status.json());
            g.writeNumberProperty("exit_code", exitCode);
            more.write(g);
        });
    }

    /**
     * The summary of a run that failed as a whole (a reshard, a download, a recover), so a program reading the JSON
     * Lines learns why: {@code source}, {@code output} (the output a write failure names, when there is one),
     * {@code code} and {@code message}.
     *
     * @param command the subcommand, such as {@code reshard}
     * @param source  what was read, for messages ({@code Location.display()}, never a secret)
     * @param output  the output file or folder a write failure names, or {@code null}
     * @param f       the failure
     * @return the object, without a line terminator
     */
    public static String failure(String command, String source, String output, Failure f) {
        return summary(command, f.status(), f.status().exitCode(), g -> {
            g.writeStringProperty("source", source);
            if (output != null) {
                g.writeStringProperty("output", output);
            }
            g.writeStringProperty("code", f.code().name());
            g.writeStringProperty("message", f.message());
        });
    }
}
