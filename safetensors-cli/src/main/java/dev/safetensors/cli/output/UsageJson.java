package dev.safetensors.cli.output;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.StringWriter;
import dev.safetensors.cli.results.Status;

/**
 * A usage error as one JSON object on one line, printed on stdout under {@code --json} so that a program reading the
 * JSON Lines learns why there are none: {@code {"kind":"usage","status":"usage","code":"USAGE","command":...,
 * "message":...}} ({@code usage} is the one status outside the verdicts of {@link Status}: nothing was read).
 */
public final class UsageJson {
    /** The {@code code} field of a usage error: not an {@link dev.safetensors.ErrorCode}, since nothing was read. */
    public static final String CODE = "USAGE";

    private static final JsonFactory JSON = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    private UsageJson() {
    }

    /**
     * @param command the command as typed, such as {@code safetensors dump}
     * @param message what is wrong
     * @return the JSON object, without a line terminator
     */
    public static String line(String command, String message) {
        StringWriter w = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), w)) {
            g.writeStartObject();
            g.writeStringProperty("kind", "usage");
            g.writeStringProperty("status", "usage");
            g.writeStringProperty("code", CODE);
            g.writeStringProperty("command", command);
            g.writeStringProperty("message", message);
            g.writeEndObject();
        }
        return w.toString();
    }
}
