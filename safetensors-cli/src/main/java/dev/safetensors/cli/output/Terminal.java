package dev.safetensors.cli.output;

/**
 * Whether stdout and stderr are terminals. The launcher knows exactly ({@code [ -t 1 ]}, {@code [ -t 2 ]}) and passes
 * {@code -Dsafetensors.stdout.terminal} and {@code -Dsafetensors.stderr.terminal}; without them (a plain
 * {@code java -m} run) the answer is {@code System.console() != null}, which on JDK 17 means stdin and stdout are
 * both terminals.
 */
public final class Terminal {
    private Terminal() {
    }

    /** @return whether stderr is a terminal, so a progress bar may be drawn there */
    public static boolean stderr() {
        return flag("safetensors.stderr.terminal");
    }

    /** @return whether stdout is a terminal, where binary output would be garbage */
    public static boolean stdout() {
        return flag("safetensors.stdout.terminal");
    }

    private static boolean flag(String property) {
        String v = System.getProperty(property);
        return v != null ? Boolean.parseBoolean(v) : System.console() != null;
    }
}
