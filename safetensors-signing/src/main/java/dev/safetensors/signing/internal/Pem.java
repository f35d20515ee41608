package dev.safetensors.signing.internal;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** PEM text (RFC 7468): the labelled Base64 blocks in it, and the one way keys are written for the key hint. */
public final class Pem {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\r?\\n(.*?)-----END \\1-----", Pattern.DOTALL);

    private Pem() {
    }

    /**
     * A labelled block.
     *
     * @param label its label, {@code PRIVATE KEY} say
     * @param der   its decoded bytes
     * @param headers whether the block carried RFC 1421 headers ({@code Proc-Type}: an encrypted legacy key)
     */
    public record Block(String label, byte[] der, boolean headers) {
    }

    /**
     * @param text PEM text; text between blocks is ignored
     * @return the blocks in order
     * @throws IllegalArgumentException if a block's body is not Base64
     */
    public static List<Block> blocks(String text) {
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            String body = m.group(2);
            boolean headers = body.contains(":");
            if (headers) {
                out.add(new Block(m.group(1), new byte[0], true));
                continue;
            }
            out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(body.strip()), false));
        }
        return out;
    }

    /**
     * The PEM OpenSSL and Python's {@code cryptography} write: 64-character lines, {@code \n} line ends, a final
     * {@code \n}. The key hint is a digest of exactly this text, so it must match byte for byte.
     *
     * @param label the block's label
     * @param der   its bytes
     * @return the PEM text
     */
    public static String encode(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }
}
