package dev.safetensors.fuzz;

/** Renders fuzz inputs in failure messages: ASCII as is, everything else as {@code \xNN}, cut at 600 bytes. */
final class Printable {
    private static final int MAX = 600;

    private Printable() {
    }

    static String bytes(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, MAX); i++) {
            int c = b[i] & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                sb.append((char) c);
            } else {
                sb.append(String.format("\\x%02x", c));
            }
        }
        return b.length > MAX ? sb + "... (" + b.length + " bytes)" : sb.toString();
    }
}
