package dev.safetensors.cli;

import dev.safetensors.core.NameGlob;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The options that say which sources a multi-source command examines, beside its SOURCE arguments:
 * {@code --recursive}, {@code --include}/{@code --exclude} globs for folders and prefixes, and {@code --from-file}
 * (and {@code -} for standard input), one location a line. Mixed into validate, inspect, manifest and verify.
 */
final class SourceArguments {
    boolean recursive;
    boolean allowEmpty;
    final List<String> include = new ArrayList<>();
    final List<String> exclude = new ArrayList<>();
    Path fromFile;

    /** @param spec the command that takes these options */
    void declare(CommandSpec spec) {
        spec.option(OptionSpec.flag("--recursive", "List folders and prefixes (a SOURCE ending in /, or a local"
                        + " folder) with their subfolders; one level otherwise.", () -> recursive = true))
                .option(OptionSpec.value("--include", "GLOB", "File names to examine in folders and prefixes"
                        + " (repeatable); default *.safetensors and *.safetensors.index.json.", include::add))
                .option(OptionSpec.value("--exclude", "GLOB", "File names to skip in folders and prefixes"
                        + " (repeatable).", exclude::add).repeated())
                .option(OptionSpec.flag("--allow-empty", "Succeed when the folders, prefixes and lists select no"
                        + " file; by default selecting nothing is NOT_FOUND (exit 3), so a mistyped prefix never"
                        + " passes.", () -> allowEmpty = true))
                .option(OptionSpec.value("--from-file", "FILE", "Also read sources from FILE, one location a line"
                        + " (blank lines skipped); - reads standard input.", v -> fromFile = OptionValue.path(v)));
    }

    /** @return the same selection without {@code --from-file}, for a run over some of the SOURCE arguments */
    SourceArguments withoutList() {
        SourceArguments copy = new SourceArguments();
        copy.recursive = recursive;
        copy.allowEmpty = allowEmpty;
        copy.include.addAll(include);
        copy.exclude.addAll(exclude);
        return copy;
    }

    /** @return whether sources are read from a list (standard input or {@code --from-file}) */
    boolean readsList(List<String> positional) {
        return fromFile != null || positional.contains("-");
    }

    /**
     * @return the include globs, the defaults when none was given
     * @throws UsageException if a glob is malformed
     */
    List<NameGlob> includes() {
        return include.isEmpty() ? List.of(NameGlob.compile(NameGlob.DEFAULT_INCLUDE),
                NameGlob.compile(NameGlob.DEFAULT_INDEX_INCLUDE)) : compile("--include", include);
    }

    /**
     * @return the exclude globs
     * @throws UsageException if a glob is malformed
     */
    List<NameGlob> excludes() {
        return compile("--exclude", exclude);
    }

    private static List<NameGlob> compile(String option, List<String> globs) {
        List<NameGlob> compiled = new ArrayList<>();
        for (String g : globs) {
            try {
                compiled.add(NameGlob.compile(g));
            } catch (IllegalArgumentException e) {
                throw new UsageException(option + ": " + e.getMessage());
            }
        }
        return compiled;
    }

    /**
     * The locations to examine, read lazily: each SOURCE argument in order ({@code -} replaced by the lines of
     * standard input), then the lines of {@code --from-file}.
     *
     * @param positional the SOURCE arguments
     * @param stdin      standard input
     * @return the locations; reading a list that fails midway ends with an {@link UncheckedIOException}
     * @throws UsageException if {@code --from-file} cannot be opened, or {@code -} is given twice
     */
    Iterator<String> locations(List<String> positional, InputStream stdin) {
        if (positional.stream().filter(s -> s.equals("-")).count() + (isStdin(fromFile) ? 1 : 0) > 1) {
            throw new UsageException("standard input (-) can be read only once");
        }
        List<Object> parts = new ArrayList<>(positional);
        if (fromFile != null && !isStdin(fromFile) && !Files.isReadable(fromFile)) {
            throw new UsageException("--from-file " + fromFile + ": no readable file there");
        }
        if (fromFile != null) {
            parts.add(fromFile);
        }
        return new Iterator<>() {
            private int next;
            private BufferedReader lines;
            private String pending;

            @Override
            public boolean hasNext() {
                while (pending == null) {
                    if (lines != null) {
                        String line = readLine();
                        if (line != null) {
                            if (!line.isBlank()) {
                                pending = line.strip();
                            }
                            continue;
                        }
                        lines = null;
                    }
                    if (next >= parts.size()) {
                        return false;
                    }
                    Object part = parts.get(next++);
                    if (part instanceof Path file) {
                        lines = open(file, stdin);
                    } else if (part.equals("-")) {
                        lines = reader(stdin);
                    } else {
                        pending = (String) part;
                    }
                }
                return true;
            }

            private String readLine() {
                try {
                    return lines.readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public String next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                String s = pending;
                pending = null;
                return s;
            }
        };
    }

    private static boolean isStdin(Path file) {
        return file != null && file.toString().equals("-");
    }

    private static BufferedReader open(Path file, InputStream stdin) {
        if (isStdin(file)) {
            return reader(stdin);
        }
        try {
            return Files.newBufferedReader(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UsageException("--from-file " + file + ": cannot read it ("
                    + dev.safetensors.ErrorCode.of(e) + ")");
        }
    }

    private static BufferedReader reader(InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }
}
