package dev.safetensors.signing.internal;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The little DER the key formats need: splitting a definite-length TLV into its children, and writing one. Only
 * what SEC1 and PKCS#8 elliptic-curve keys use; anything else is refused by the caller.
 */
public final class Der {
    /** The universal tags used here. */
    public static final int INTEGER = 0x02;
    /** OCTET STRING. */
    public static final int OCTET_STRING = 0x04;
    /** SEQUENCE, constructed. */
    public static final int SEQUENCE = 0x30;

    /** DER of the OID 1.2.840.10045.2.1, id-ecPublicKey. */
    public static final byte[] EC_PUBLIC_KEY_OID = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};

    private Der() {
    }

    /**
     * One element: its tag and its content.
     *
     * @param tag     the identifier octet (single-octet tags only)
     * @param content the content octets
     * @param encoded the whole element, tag and length included
     */
    public record Element(int tag, byte[] content, byte[] encoded) {
    }

    /**
     * @param bytes the content of a constructed element (or a whole document)
     * @return its elements in order
     * @throws IllegalArgumentException if the bytes are not a run of definite-length DER elements
     */
    public static List<Element> children(byte[] bytes) {
        List<Element> out = new ArrayList<>();
        int at = 0;
        while (at < bytes.length) {
            int start = at;
            int tag = bytes[at++] & 0xff;
            if ((tag & 0x1f) == 0x1f || at >= bytes.length) {
                throw new IllegalArgumentException("not DER: multi-byte tag or truncated element");
            }
            int first = bytes[at++] & 0xff;
            long length;
            if (first < 0x80) {
                length = first;
            } else {
                int count = first & 0x7f;
                if (count == 0 || count > 4 || at + count > bytes.length) {
                    throw new IllegalArgumentException("not DER: bad length");
                }
                length = 0;
                for (int i = 0; i < count; i++) {
                    length = (length << 8) | (bytes[at++] & 0xff);
                }
            }
            if (length > bytes.length - at) {
                throw new IllegalArgumentException("not DER: element longer than its container");
            }
            int end = at + (int) length;
            out.add(new Element(tag, Arrays.copyOfRange(bytes, at, end), Arrays.copyOfRange(bytes, start, end)));
            at = end;
        }
        return out;
    }

    /**
     * @param bytes a document holding exactly one element
     * @return that element
     * @throws IllegalArgumentException if it holds none, several, or bad DER
     */
    public static Element single(byte[] bytes) {
        List<Element> all = children(bytes);
        if (all.size() != 1) {
            throw new IllegalArgumentException("not DER: expected one element, found " + all.size());
        }
        return all.get(0);
    }

    /**
     * @param tag   the identifier octet
     * @param parts the content, concatenated in order
     * @return the encoded element
     */
    public static byte[] encode(int tag, byte[]... parts) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            content.writeBytes(part);
        }
        int length = content.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
        out.write(tag);
        if (length < 0x80) {
            out.write(length);
        } else {
            int count = length < 0x100 ? 1 : length < 0x10000 ? 2 : length < 0x1000000 ? 3 : 4;
            out.write(0x80 | count);
            for (int i = count - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content.toByteArray());
        return out.toByteArray();
    }
}
