package dev.safetensors.cli.arguments;

import dev.safetensors.core.NameGlob;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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
public final class SourceArguments {
    /**
     * The longest line of a list of locations, in bytes without its terminator: a location is a few KiB at most,
     * and a longer line (a stream with no line break, such as {@code /dev/zero}) is a usage error, not a heap filled.
     */
    public static final int DEFAULT_MAX_LINE_BYTES = 8 * 1024;

    /** {@code --recursive}: a folder or prefix is listed below its first level too. */
    public boolean recursive;
    /** {@code --allow-empty}: a selection that takes no file is no failure. */
    public boolean allowEmpty;
    /** The {@code --include} globs, in the order given. */
    public final List<String> include = new ArrayList<>();
    /** The {@code --exclude} globs, in the order given. */
    public final List<String> exclude = new ArrayList<>();
    /** {@code --from-file}: the file that lists the sources, or {@code null}. */
    public Path fromFile;
    /**
     * Whether each sharded checkpoint's index file is examined as a file too, after its checkpoint: set by
     * {@code manifest} and {@code verify}, which record and compare every file a checkpoint consists of; no option.
     */
    public boolean indexFiles;

    /** @param spec the command that takes these options */
    public void declare(CommandSpec spec) {
        spec.option(OptionSpec.flag("--recursive", "List folders and prefixes (a SOURCE ending in /, or a local"
                        + " folder) with their subfolders; one level otherwise.", () -> recursive = true))
                .option(OptionSpec.value("--include", "GLOB", "File names to examine in folders and prefixes"
                        + " (repeatable); default *.safetensors and *.safetensors.index.json.", include::add)
                        .repeated())
                .option(OptionSpec.value("--exclude", "GLOB", "File names to skip in folders and prefixes"
                        + " (repeatable).", exclude::add).repeated())
                .option(OptionSpec.flag("--allow-empty", "Succeed when the folders, prefixes and lists select no"
                        + " file; by default selecting nothing is NOT_FOUND (exit 3), so a mistyped prefix never"
                        + " passes.", () -> allowEmpty = true))
                .option(OptionSpec.value("--from-file", "FILE", "Also read sources from FILE, one location a line"
                        + " (UTF-8, at most " + DEFAULT_MAX_LINE_BYTES / 1024 + " KiB a line; blank lines skipped);"
                        + " - reads standard input.", v -> fromFile = OptionValue.path(v)));
    }

    /** @return the same selection without {@code --from-file}, for a run over some of the SOURCE arguments */
    public SourceArguments withoutList() {
        SourceArguments copy = new SourceArguments();
        copy.recursive = recursive;
        copy.allowEmpty = allowEmpty;
        copy.indexFiles = indexFiles;
        copy.include.addAll(include);
        copy.exclude.addAll(exclude);
        return copy;
    }

    /**
     * @param positional the SOURCE arguments as typed
     * @return whether sources are read from a list (standard input or {@code --from-file})
     */
    public boolean readsList(List<String> positional) {
        return fromFile != null || positional.contains("-");
    }

    /**
     * @return the include globs, the defaults when none was given
     * @throws UsageException if a glob is malformed
     */
    public List<NameGlob> includes() {
        return include.isEmpty() ? List.of(NameGlob.compile(NameGlob.DEFAULT_INCLUDE),
                NameGlob.compile(NameGlob.DEFAULT_INDEX_INCLUDE)) : compile("--include", include);
    }

    /**
     * @return the exclude globs
     * @throws UsageException if a glob is malformed
     */
    public List<NameGlob> excludes() {
        return compile("--exclude", exclude);
    }

    /**
     * @param option the option the globs were given with, for the message
     * @param globs  the globs as typed
     * @return the compiled globs, in order
     * @throws UsageException if a glob is malformed
     */
    public static List<NameGlob> compile(String option, List<String> globs) {
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
    public Iterator<String> locations(List<String> positional, InputStream stdin) {
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
            private LineReader lines;
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
                        lines = new LineReader(stdin, STDIN);
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

    private static LineReader open(Path file, InputStream stdin) {
        if (isStdin(file)) {
            return new LineReader(stdin, STDIN);
        }
        try {
            return new LineReader(Files.newInputStream(file), "--from-file " + file);
        } catch (IOException e) {
            throw new UsageException("--from-file " + file + ": cannot read it ("
                    + dev.safetensors.ErrorCode.of(e) + ")");
        }
    }

    private static final String STDIN = "standard input";

    /**
     * Reads lines of strict UTF-8, each ended by LF, CR or CR LF (as {@link java.io.BufferedReader#readLine}), none
     * longer than {@link #DEFAULT_MAX_LINE_BYTES}: the bytes are taken from the stream a block at a time, so no more
     * than one line's bound and one block are ever held, whatever the stream holds.
     */
    static final class LineReader {
        private final InputStream in;
        private final String name;
        private final byte[] block = new byte[4096];
        private final byte[] line = new byte[DEFAULT_MAX_LINE_BYTES];
        private int position;
        private int limit;
        private long number;
        private boolean skipLineFeed;

        /**
         * @param in   the stream; the caller closes it
         * @param name the list's name, for messages ({@code standard input}, {@code --from-file FILE})
         */
        LineReader(InputStream in, String name) {
            this.in = in;
            this.name = name;
        }

        /**
         * @return the next line without its terminator, or {@code null} at the end of the stream
         * @throws UsageException if the line is longer than {@link #DEFAULT_MAX_LINE_BYTES} or not UTF-8, naming
         *                        its number
         * @throws IOException    if the stream fails
         */
        String readLine() throws IOException {
            int length = 0;
            boolean any = false;
            while (true) {
                if (position == limit) {
                    limit = in.read(block);
                    position = 0;
                    if (limit <= 0) {
                        limit = 0;
                        return any ? decode(length) : null;
                    }
                }
                byte b = block[position++];
                if (skipLineFeed) {
                    skipLineFeed = false;
                    if (b == '\n') {
                        continue;
                    }
                }
                if (!any) {
                    any = true;
                    number++;
                }
                if (b == '\n' || b == '\r') {
                    skipLineFeed = b == '\r';
                    return decode(length);
                }
                if (length == line.length) {
                    throw new UsageException(name + ": line " + number + " is longer than " + line.length
                            + " bytes; a list holds one location a line");
                }
                line[length++] = b;
            }
        }

        private String decode(int length) {
            try {
                return StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(line, 0, length)).toString();
            } catch (CharacterCodingException e) {
                throw new UsageException(name + ": line " + number + " is not UTF-8 text; a list holds one"
                        + " location a line, in UTF-8");
            }
        }
    }
}
