package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The entry point of the {@code safetensors} command. Results go to stdout, errors to stderr, both UTF-8; the exit
 * code is 0 (all valid), 1 (some invalid or unsupported), 2 (usage error) or 3 (some source unreadable, or stdout
 * could not be written: a full disk, a closed pipe). No stack trace and no library log line is printed unless
 * {@code --debug} is given (see {@link DebugLog}).
 */
public final class Main {
    private Main() {
    }

    /**
     * Runs the command and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                false, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        int code = run(args, out, err);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * @param args the command line
     * @param out  stdout
     * @param err  stderr
     * @return the exit code
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        try (DebugLog log = DebugLog.route(Arrays.asList(args).contains("--debug"), err)) {
            return runLogged(args, out, err);
        }
    }

    private static int runLogged(String[] args, PrintStream out, PrintStream err) {
        int code = execute(args, out, err);
        out.flush();
        if (out.checkError()) {
            // PrintStream swallows write failures; whatever the verdict, the output the user asked for is lost
            err.println("safetensors: cannot write to " + Sink.STDOUT + " (a closed pipe or a full disk?); the output"
                    + " is incomplete [" + ErrorCode.WRITE_FAILED + "]");
            err.flush();
            return Status.ERROR.exitCode();
        }
        return code;
    }

    private static int execute(String[] args, PrintStream out, PrintStream err) {
        boolean debug = Arrays.asList(args).contains("--debug");
        Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
        commands.put("inspect", () -> new InspectCommand(out, err));
        commands.put("validate", () -> new ValidateCommand(out, err));
        commands.put("verify", () -> new VerifyCommand(out, err));
        commands.put("manifest", () -> new ManifestCommand(out, err));
        commands.put("dump", () -> new DumpCommand(out, err));
        commands.put("reshard", () -> new ReshardCommand(out, err));
        CommandLine cli = new CommandLine(new SafetensorsCommand(err));
        // picocli reflects over every command it is given; a run needs only its own (startup time is the budget),
        // the version none, and the help and usage errors all of them, to list them
        String first = args.length > 0 ? args[0] : "";
        if (commands.containsKey(first)) {
            cli.addSubcommand(commands.get(first).get());
        } else if (!(args.length == 1 && (first.equals("-V") || first.equals("--version")))) {
            commands.values().forEach(c -> cli.addSubcommand(c.get()));
        }
        cli.setCaseInsensitiveEnumValuesAllowed(true)
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((ParameterException e, String[] a) -> {
            CommandLine cmd = e.getCommandLine();
            err.println("safetensors: " + Sanitized.line(String.valueOf(e.getMessage()), 1000));
            err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
            return Status.USAGE;
        });
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            err.println("safetensors: internal error: " + Sanitized.line(e.toString(), 1000) + (debug ? ""
                    : " (run with --debug for the stack trace)"));
            if (debug) {
                err.print(Sanitized.stackTrace(e));
            }
            return Status.ERROR.exitCode();
        });
        return cli.execute(args);
    }
}
