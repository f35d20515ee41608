package dev.safetensors.cli.output;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The version Maven wrote into {@code version.properties} when it built the jar, for {@code --version}. */
public final class VersionInfo {
    private VersionInfo() {
    }

    /** @return the project version, such as {@code 0.1.0} */
    public static String version() {
        try (InputStream in = VersionInfo.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return what {@code --version} prints: the command's version, then the Java that runs it */
    public static String text() {
        return String.join(System.lineSeparator(), "safetensors " + version(), "Java " + Runtime.version() + " ("
                + System.getProperty("java.vm.name") + ")") + System.lineSeparator();
    }
}
