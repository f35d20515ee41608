package dev.safetensors.core.internal.header;

import java.nio.charset.StandardCharsets;

/**
 * Recognises the files people most often mistake for a checkpoint (rule 6), so the error says what the file is
 * instead of only "header too large": a Git LFS pointer committed in place of the weights, or an HTML or XML page
 * (an error page or a login page saved by a download tool).
 */
public final class PrefixSniffer {
    private static final byte[] LFS = "version https://git-lfs.github.com/spec/".getBytes(StandardCharsets.US_ASCII);

    private PrefixSniffer() {
    }

    /**
     * @param b   the first bytes of the file
     * @param len how many of them are valid
     * @return what the bytes are, or {@code null} when they are not recognised
     */
    static String recognise(byte[] b, int len) {
        if (startsWith(b, len, LFS)) {
            return "this is a Git LFS pointer file, not the weights: fetch the real file (git lfs pull, or download"
                    + " it through the LFS/resolve URL)";
        }
        int i = 0;
        while (i < len && i < 64 && isSpace(b[i])) {
            i++;
        }
        if (i < len && b[i] == '<') {
            return "this looks like an HTML or XML page (an error or login page saved in place of the file?), not"
                    + " a safetensors file";
        }
        return null;
    }

    private static boolean startsWith(byte[] b, int len, byte[] prefix) {
        if (len < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (b[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == (byte) 0xEF || c == (byte) 0xBB
                || c == (byte) 0xBF;
    }
}
