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
}
