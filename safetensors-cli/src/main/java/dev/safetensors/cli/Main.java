package dev.safetensors.cli;

import dev.safetensors.ErrorCode;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import dev.safetensors.cli.arguments.ArgumentParser;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.HelpText;
import dev.safetensors.cli.arguments.JobsOption;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.commands.Subcommand;
import dev.safetensors.cli.output.DebugLog;
import dev.safetensors.cli.output.OutOfMemory;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.output.Sink;
import dev.safetensors.cli.output.StandardOutput;
import dev.safetensors.cli.output.UsageJson;
import dev.safetensors.cli.output.VersionInfo;
import dev.safetensors.cli.results.Status;

/**
 * The entry point of the {@code safetensors} command. Results go to stdout, errors to stderr, both UTF-8; the exit
 * code is 0 (all valid), 1 (some invalid or unsupported), 2 (usage error) or 3 (some source unreadable, or stdout
 * could not be written: a full disk). When the reader of stdout went away ({@code | head}), the command ends quietly
 * with {@link StandardOutput#CLOSED_PIPE_STATUS}, as {@code cat} does. Under {@code --json} a usage error is also one
 * JSON object on stdout ({@link UsageJson}). No stack trace and no library log line is printed unless
 * {@code --debug} is given (see {@link DebugLog}).
 */
public final class Main {
    /**
     * Idle connections the JDK's {@code HttpURLConnection} keeps per host, its {@code http.maxConnections} (default
     * 5), unless the user set it. The S3 and Cloud Storage backends send through that connection cache: with more
     * workers than it keeps, a worker that hands its connection back to a full cache closes it, and the next request
     * opens a new one (at {@code --jobs 16}, 264 connections for 1,600 objects instead of 16). As many as the most
     * jobs, so every worker's connection is kept; idle ones still close after the server's keep-alive time.
     */
    static final String IDLE_CONNECTIONS_PER_HOST = Integer.toString(JobsOption.MAX_JOBS);

    private Main() {
    }

    /**
     * Runs the command and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        keepIdleConnections();
        PrintStream out = StandardOutput.open();
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        int code = run(args, out, err);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** Sets {@code http.maxConnections} to {@link #IDLE_CONNECTIONS_PER_HOST} unless it is set already. */
    static void keepIdleConnections() {
        if (System.getProperty("http.maxConnections") == null) {
            System.setProperty("http.maxConnections", IDLE_CONNECTIONS_PER_HOST);
        }
    }

    /**
     * @param args the command line
     * @param out  stdout
     * @param err  stderr
     * @return the exit code
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        try (DebugLog log = DebugLog.route(Arrays.asList(args).contains("--debug"), err)) {
            return runLogged(args, out, err);
        }
    }

    private static int runLogged(String[] args, PrintStream out, PrintStream err) {
        int code = execute(args, out, err);
        out.flush();
        if (out.checkError()) {
            if (out instanceof StandardOutput stdout && stdout.readerGone()) {
                // the reader has what it wanted: nothing to report, as for cat or grep
                return StandardOutput.CLOSED_PIPE_STATUS;
            }
            // PrintStream swallows write failures; whatever the verdict, the output the user asked for is lost
            err.println("safetensors: cannot write to " + Sink.STDOUT + " (a closed pipe or a full disk?); the output"
                    + " is incomplete [" + ErrorCode.WRITE_FAILED + "]");
            err.flush();
            return Status.ERROR.exitCode();
        }
        return code;
    }

    private static int execute(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println("safetensors: a command is required");
            err.print(SafetensorsCommand.help());
            return Status.USAGE;
        }
        String first = args[0];
        Subcommand command = SafetensorsCommand.named(first, out, err);
        if (command == null) {
            switch (first) {
                case "-h", "--help" -> out.print(SafetensorsCommand.help());
                case "-V", "--version" -> out.print(VersionInfo.text());
                default -> {
                    return usage(out, err, args, "safetensors", (first.startsWith("-") ? "Unknown option: '"
                            : "Unknown command: '") + Sanitized.line(first, 200) + "'");
                }
            }
            return Status.VALID.exitCode();
        }
        CommandSpec spec = command.spec();
        try {
            if (ArgumentParser.parse(spec, Arrays.asList(args).subList(1, args.length))) {
                out.print(HelpText.of(spec));
                return Status.VALID.exitCode();
            }
            return command.call();
        } catch (UsageException e) {
            return usage(out, err, args, "safetensors " + first, e.getMessage());
        } catch (OutOfMemoryError e) {
            // the last resort: one coded line, never a trace (what held the memory is unreachable by now)
            err.println("safetensors: " + OutOfMemory.message() + " [" + ErrorCode.OUT_OF_MEMORY + "]");
            return Status.ERROR.exitCode();
        } catch (RuntimeException e) {
            boolean debug = Arrays.asList(args).contains("--debug");
            err.println("safetensors: internal error: " + Sanitized.line(e.toString(), 1000) + (debug ? ""
                    : " (run with --debug for the stack trace)"));
            if (debug) {
                err.print(Sanitized.stackTrace(e));
            }
            return Status.ERROR.exitCode();
        }
    }

    private static int usage(PrintStream out, PrintStream err, String[] args, String command, String message) {
        String line = Sanitized.line(String.valueOf(message), 1000);
        if (Arrays.asList(args).contains("--json")) {
            out.println(UsageJson.line(command, line));
        }
        err.println("safetensors: " + line);
        err.println("Try '" + command + " --help' for more information.");
        return Status.USAGE;
    }
}
