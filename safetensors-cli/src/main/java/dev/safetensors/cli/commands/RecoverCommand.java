package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.core.CommitJournal;
import tools.jackson.core.JsonGenerator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.output.CommandJson;
import dev.safetensors.cli.output.Readable;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/**
 * {@code safetensors recover DIR}: finishes the commit a writer killed halfway left in a local folder, from a journal
 * the library authenticates as a writer's ({@link CommitJournal#recover(Path)}); reads refuse such a folder
 * ({@code INTERRUPTED_COMMIT}) and change nothing, so this is where a folder is made readable again. Text: one line per
 * journal rolled forward, or one saying there was none. {@code --json}: one object, {@code kind} {@code recover},
 * {@code source} (the folder), {@code status} {@code valid}, {@code journals} (each with {@code journal},
 * {@code renamed} and {@code deleted}); or for a failure the {@code summary} object every command fails with
 * ({@link CommandJson#failure}). Exit 0 when the folder
 * holds no unfinished commit afterwards, 3 when a journal is refused or a rename fails (nothing is changed for a
 * refused one), 2 for a usage error.
 */
public final class RecoverCommand extends Subcommand {

    boolean json;

    boolean debug;

    String folder;

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("recover", List.of("Finish a commit that a writer (reshard, ShardedWriter)"
                + " began in DIR and did not end, killed between its first and last rename: every read of DIR"
                + " refuses it with INTERRUPTED_COMMIT until then, and changes nothing.",
                "Only a journal (.PREFIX.safetensors-commit) that a writer made is rolled forward: a regular file"
                        + " whose every name is one the writer generates (its own temporary names, and the files of"
                        + " one checkpoint with that prefix). Any other is refused and nothing in DIR is changed;"
                        + " check its files by hand. The next write into DIR recovers the same way."),
                List.of("", "Examples:",
                        "  safetensors recover shards/",
                        "  safetensors recover --json shards/"));
        spec.option(OptionSpec.flag("--json", "Print one JSON object (schema in docs/cli.md).", () -> json = true));
        spec.option(OptionSpec.flag("--debug", "Print the stack trace behind a failure on stderr.",
                () -> debug = true));
        spec.positional(new PositionalSpec("DIR", 1, 1, "The local folder to recover.", v -> folder = v));
        return spec;
    }

    @Override
    public int call() {
        List<CommitJournal.Recovered> done;
        try {
            done = CommitJournal.recover(local(folder));
        } catch (IOException | RuntimeException e) {
            Failure f = Failure.from(e, folder);
            if (json) {
                out.println(CommandJson.failure("recover", folder, null, f));
            }
            String named = e instanceof dev.safetensors.SafetensorsException s && s.source() != null
                    && !s.source().isEmpty() ? s.source() : folder;
            err.println("safetensors recover: " + Sanitized.line(named, 400) + ": " + Sanitized.line(f.message(),
                    2000) + " [" + f.code() + "]");
            if (debug) {
                err.print(Sanitized.stackTrace(e));
            }
            return f.status().exitCode();
        }
        if (json) {
            out.println(CommandJson.object(g -> {
                g.writeStringProperty("source", folder);
                g.writeStringProperty("kind", "recover");
                g.writeStringProperty("status", Status.VALID.json());
                g.writeName("journals");
                g.writeStartArray();
                for (CommitJournal.Recovered r : done) {
                    g.writeStartObject();
                    g.writeStringProperty("journal", r.journal().toString());
                    names(g, "renamed", r.renamed());
                    names(g, "deleted", r.deleted());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }));
        } else if (done.isEmpty()) {
            out.println("nothing to recover in " + Sanitized.line(folder, 400) + ": no unfinished commit");
        } else {
            for (CommitJournal.Recovered r : done) {
                out.printf(Locale.ROOT, "recovered %s: renamed %s, deleted %s%n",
                        Sanitized.line(r.journal().toString(), 400), list(r.renamed()), list(r.deleted()));
            }
        }
        return Status.VALID.exitCode();
    }

    /** @return the folder, a local one: a location with a scheme is never taken for a path */
    private static Path local(String text) throws IOException {
        Location at = Location.parse(text);
        if (!at.isLocal() || at.looksLikeUri() && at.uri().isEmpty()) {
            throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, Sanitized.line(text, 400)
                    + ": recover works on a local folder only (a commit journal is only ever written there)");
        }
        Path dir;
        try {
            dir = at.path();
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, Sanitized.line(text, 400) + ": is not a"
                    + " path of this file system");
        }
        if (!Files.exists(dir)) {
            throw new SourceNotFoundException(text, "no such folder: check the path");
        }
        if (!Files.isDirectory(dir)) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, Sanitized.line(text, 400)
                    + ": is a file, not a folder: name the folder that holds the checkpoint");
        }
        return dir;
    }

    private static String list(List<String> names) {
        if (names.isEmpty()) {
            return "nothing";
        }
        return Readable.plural(names.size(), "file") + " (" + Sanitized.line(String.join(", ", names), 1000) + ")";
    }

    private static void names(JsonGenerator g, String field, List<String> names) {
        g.writeName(field);
        g.writeStartArray();
        for (String n : names) {
            g.writeString(n);
        }
        g.writeEndArray();
    }
}
