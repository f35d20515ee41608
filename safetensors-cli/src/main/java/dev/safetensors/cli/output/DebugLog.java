package dev.safetensors.cli.output;

import java.io.PrintStream;
import java.util.List;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Where the libraries' log lines go during a run. The library modules log through {@link System.Logger}, whose
 * default backend is {@code java.util.logging} once the {@code java.logging} module is present (this module requires
 * it), and the cloud SDKs log there directly; left alone, its root handler prints INFO and above to stderr. A run
 * owns stderr: without {@code --debug} nothing is logged (also with {@code --json}); with {@code --debug} every line
 * down to DEBUG ({@link Level#FINE}) goes to stderr, each string escaped by {@link Sanitized}, because retry and
 * request messages quote server responses.
 */
public final class DebugLog implements AutoCloseable {
    // the configuration is the JVM's: runs that overlap in one JVM (tests) share it, and the last one out restores it
    private static final Object LOCK = new Object();
    private static final Logger ROOT = Logger.getLogger("");
    private static int running;
    private static List<Handler> foundHandlers;
    private static Level foundLevel;

    private final Handler installed;

    private DebugLog(Handler installed) {
        this.installed = installed;
    }

    /**
     * Replaces the root logger's handlers until {@link #close()}.
     *
     * @param debug whether {@code --debug} was given
     * @param err   stderr
     * @return the routing; closing it restores the configuration found
     */
    public static DebugLog route(boolean debug, PrintStream err) {
        Handler handler = debug ? new ErrHandler(err) : null;
        synchronized (LOCK) {
            if (running++ == 0) {
                foundHandlers = List.of(ROOT.getHandlers());
                foundLevel = ROOT.getLevel();
                foundHandlers.forEach(ROOT::removeHandler);
                // no handler would print them: not even building the records is cheaper
                ROOT.setLevel(Level.OFF);
            }
            if (handler != null) {
                ROOT.addHandler(handler);
                // FINE is System.Logger's DEBUG; FINER and FINEST (TRACE) would bury it in the SDKs' internals
                ROOT.setLevel(Level.FINE);
            }
        }
        return new DebugLog(handler);
    }

    /** Removes this run's handler; the last run to close puts back the handlers and level found. */
    @Override
    public void close() {
        synchronized (LOCK) {
            if (installed != null) {
                ROOT.removeHandler(installed);
            }
            if (--running == 0) {
                foundHandlers.forEach(ROOT::addHandler);
                ROOT.setLevel(foundLevel);
                foundHandlers = null;
            } else if (ROOT.getHandlers().length == 0) {
                ROOT.setLevel(Level.OFF);
            }
        }
    }

    /** Prints each record on stderr as one escaped line, and an escaped stack trace when it has one. */
    private static final class ErrHandler extends Handler {
        private final PrintStream err;

        ErrHandler(PrintStream err) {
            this.err = err;
            setLevel(Level.ALL);
            setFormatter(new EscapingFormatter());
        }

        @Override
        public void publish(LogRecord record) {
            // The JDK HttpClient's internal debug lines quote whole request URLs, where a SAS or a presigned URL
            // keeps its signature: they are never printed. Our backends log each request without its credentials.
            if (isLoggable(record) && !String.valueOf(record.getLoggerName()).startsWith("jdk.internal.httpclient")) {
                err.print(getFormatter().format(record));
                err.flush();
            }
        }

        @Override
        public void flush() {
            err.flush();
        }

        /** The stream is stderr, which the run does not own: it stays open. */
        @Override
        public void close() {
            err.flush();
        }
    }

    /** {@code safetensors: DEBUG logger: message}, every part escaped. */
    private static final class EscapingFormatter extends Formatter {
        @Override
        public String format(LogRecord record) {
            String line = "safetensors: " + levelName(record.getLevel()) + " "
                    + Sanitized.line(String.valueOf(record.getLoggerName()), 200) + ": "
                    + Sanitized.line(String.valueOf(formatMessage(record)), 4000) + System.lineSeparator();
            return record.getThrown() == null ? line : line + Sanitized.stackTrace(record.getThrown());
        }

        /** System.Logger's names, which the library's code uses, rather than java.util.logging's. */
        private static String levelName(Level level) {
            int v = level.intValue();
            return v >= Level.SEVERE.intValue() ? "ERROR" : v >= Level.WARNING.intValue() ? "WARNING"
                    : v >= Level.INFO.intValue() ? "INFO" : v >= Level.FINE.intValue() ? "DEBUG" : "TRACE";
        }
    }
}
