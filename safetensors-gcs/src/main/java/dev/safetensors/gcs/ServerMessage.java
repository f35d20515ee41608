package dev.safetensors.gcs;

import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The message of a Cloud Storage error answer, its JSON {@code message} (or the start of the body when it is not
 * JSON), clipped, for the failures this backend throws: the server's own words say what was wrong.
 */
final class ServerMessage {
    private static final Pattern JSON_MESSAGE = Pattern.compile("\"message\"\\s*:\\s*\"([^\"]{1,300})\"");
    private static final int ERROR_BODY_LIMIT = 1024;

    private ServerMessage() {
    }

    /**
     * Reads at most 1 KiB of an error body; the caller drops the connection after.
     *
     * @param body the answer's body
     * @return the message, clipped, or empty if there is none or the body cannot be read
     */
    static String of(InputStream body) {
        try {
            String text = new String(body.readNBytes(ERROR_BODY_LIMIT), StandardCharsets.UTF_8);
            Matcher m = JSON_MESSAGE.matcher(text);
            return SourceNames.clip(m.find() ? m.group(1) : text.trim());
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * @param message a message from {@link #of}
     * @return {@code " (server said: MESSAGE)"}, or empty for an empty message
     */
    static String quoted(String message) {
        return message.isEmpty() ? "" : " (server said: " + message + ")";
    }
}
