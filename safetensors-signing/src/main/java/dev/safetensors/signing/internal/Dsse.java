package dev.safetensors.signing.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** DSSE v1's pre-authentication encoding, the bytes a signature actually covers. */
public final class Dsse {
    private Dsse() {
    }

    /**
     * {@code "DSSEv1" SP len(type) SP type SP len(body) SP body}, lengths in decimal bytes: binding the type to the
     * body, so a signature over one payload type cannot be replayed as another.
     *
     * @param payloadType the envelope's payload type
     * @param payload     the payload bytes
     * @return the encoding
     */
    public static byte[] pae(String payloadType, byte[] payload) {
        byte[] type = payloadType.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + type.length + 32);
        out.writeBytes(("DSSEv1 " + type.length + " ").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(type);
        out.writeBytes((" " + payload.length + " ").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(payload);
        return out.toByteArray();
    }

    /**
     * The encoding version 0.2 of the reference implementation signed by mistake: {@code "DSSEV1"} with a capital
     * V, and the payload as Python prints a bytes object ({@code b'...'}, with escapes) rather than its bytes,
     * signed with SHA-256 whatever the curve. Its bundles, and only they, carry the deprecated
     * {@code Digests/v0.1} predicate; verifiers accept the one for the other.
     *
     * @param payloadType the envelope's payload type
     * @param payload     the payload bytes
     * @return the encoding
     */
    public static byte[] legacyPae(String payloadType, byte[] payload) {
        byte[] type = payloadType.getBytes(StandardCharsets.UTF_8);
        StringBuilder text = new StringBuilder(payload.length + 64).append("DSSEV1 ").append(type.length).append(' ')
                .append(payloadType).append(' ').append(payload.length).append(' ');
        appendPythonBytesRepr(text, payload);
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Python's {@code repr(bytes)}: single quotes unless the bytes hold a single quote and no double quote. */
    private static void appendPythonBytesRepr(StringBuilder out, byte[] bytes) {
        boolean single = false;
        boolean dbl = false;
        for (byte b : bytes) {
            single |= b == '\'';
            dbl |= b == '"';
        }
        char quote = single && !dbl ? '"' : '\'';
        out.append('b').append(quote);
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c == quote || c == '\\') {
                out.append('\\').append((char) c);
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c < 0x20 || c >= 0x7f) {
                out.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
            } else {
                out.append((char) c);
            }
        }
        out.append(quote);
    }
}
