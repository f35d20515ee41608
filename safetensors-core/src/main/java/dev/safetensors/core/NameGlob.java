package dev.safetensors.core;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A glob matched against one file name (the last segment of a location, never the folders above it), with the
 * syntax of {@link java.nio.file.FileSystem#getPathMatcher}: {@code *} and {@code **} (any characters; a name has no
 * folders to cross), {@code ?} (one character), {@code [abc]}, {@code [a-z]} and {@code [!abc]} (one character of a
 * class, {@code ^} first is a plain {@code ^}, {@code -} first or last a plain {@code -}), {@code &#123;a,b&#125;}
 * (one of the alternatives, not nested) and {@code \} before a character to match it as written. The command's
 * {@code --include}/{@code --exclude} and the Spark source's {@code pathGlobFilter} use it, so a pattern means the
 * same in both; it is case-sensitive on every platform, as object stores' names are.
 *
 * <p>The pattern is compiled to a nondeterministic automaton and the name is run through all of its states at once,
 * so a match takes time proportional to the name's length times the pattern's, whatever either holds: a pattern of
 * many {@code *} never backtracks (a regular expression's matcher takes exponential time on some of them).
 * Immutable and thread-safe.
 */
public final class NameGlob {
    /** The files a folder or prefix is checked for by default. */
    public static final String DEFAULT_INCLUDE = "*" + dev.safetensors.Location.FILE_SUFFIX;
    /** The shard indexes a folder or prefix is checked for by default, beside {@link #DEFAULT_INCLUDE}. */
    public static final String DEFAULT_INDEX_INCLUDE = "*" + dev.safetensors.Location.INDEX_SUFFIX;

    /** Consumes one code point equal to {@link #literal}. */
    private static final byte LITERAL = 0;
    /** Consumes any one code point. */
    private static final byte ANY = 1;
    /** Consumes one code point of {@link #classes}. */
    private static final byte CLASS = 2;
    /** Consumes any code point and stays, or moves on without consuming. */
    private static final byte STAR = 3;
    /** Moves on, without consuming, to every state of {@link #targets}: the start of each alternative. */
    private static final byte SPLIT = 4;
    /** Moves on, without consuming, to the state after a group. */
    private static final byte JUMP = 5;
    /** The whole name has been consumed here: it matches. */
    private static final byte MATCH = 6;

    private final String glob;
    private final byte[] kinds;
    private final int[] literal;
    private final CharClass[] classes;
    private final int[][] targets;

    /** A bracket class: ranges of code points, inclusive, possibly negated. */
    private record CharClass(boolean negated, int[] ranges) {
        boolean contains(int cp) {
            boolean in = false;
            for (int i = 0; i < ranges.length && !in; i += 2) {
                in = cp >= ranges[i] && cp <= ranges[i + 1];
            }
            return in != negated;
        }
    }

    private NameGlob(String glob, byte[] kinds, int[] literal, CharClass[] classes, int[][] targets) {
        this.glob = glob;
        this.kinds = kinds;
        this.literal = literal;
        this.classes = classes;
        this.targets = targets;
    }

    /**
     * @param glob the pattern
     * @return the compiled pattern
     * @throws IllegalArgumentException if the pattern is empty or malformed (an unclosed or empty bracket, an unclosed
     *                                  or nested brace, a reversed range, a {@code /} in a class, a trailing
     *                                  {@code \}), with the pattern and the reason in its message
     */
    public static NameGlob compile(String glob) {
        Objects.requireNonNull(glob, "glob");
        if (glob.isEmpty()) {
            throw new IllegalArgumentException("the glob is empty: give a pattern such as *.safetensors");
        }
        return new Compiler(glob).compile();
    }

    /**
     * @param name a file name
     * @return whether the glob matches it; a name that is not a valid file name on this platform matches nothing
     */
    public boolean matches(String name) {
        return run(name, new long[1]);
    }

    /**
     * @param name a file name
     * @return the steps {@link #matches} takes on it (states entered and transitions tried), which never exceed
     *         {@code 2 * states * (code points + 1)}: the bound the tests hold it to, in place of a clock
     */
    long steps(String name) {
        long[] steps = new long[1];
        run(name, steps);
        return steps[0];
    }

    /** @return the number of states of the automaton */
    int states() {
        return kinds.length;
    }

    private boolean run(String name, long[] steps) {
        if (name.isEmpty() || name.indexOf('/') >= 0 || !validName(name)) {
            return false;
        }
        int n = kinds.length;
        int[] current = new int[n];
        int[] next = new int[n];
        int[] seen = new int[n];
        int[] stack = new int[n];
        int generation = 1;
        int size = enter(0, current, 0, seen, generation, stack, steps);
        for (int i = 0; i < name.length() && size > 0; ) {
            int cp = name.codePointAt(i);
            i += Character.charCount(cp);
            generation++;
            int nextSize = 0;
            for (int k = 0; k < size; k++) {
                int s = current[k];
                steps[0]++;
                boolean moves = switch (kinds[s]) {
                    case LITERAL -> literal[s] == cp;
                    case ANY -> true;
                    case CLASS -> classes[s].contains(cp);
                    default -> false;
                };
                if (kinds[s] == STAR) {
                    nextSize = enter(s, next, nextSize, seen, generation, stack, steps);
                } else if (moves) {
                    nextSize = enter(s + 1, next, nextSize, seen, generation, stack, steps);
                }
            }
            int[] swap = current;
            current = next;
            next = swap;
            size = nextSize;
        }
        for (int k = 0; k < size; k++) {
            if (kinds[current[k]] == MATCH) {
                return true;
            }
        }
        return false;
    }

    /**
     * Adds a state and every state reached from it without consuming to {@code set}, each once per generation.
     *
     * @return the new size of the set
     */
    private int enter(int state, int[] set, int size, int[] seen, int generation, int[] stack, long[] steps) {
        if (seen[state] == generation) {
            return size;
        }
        // marked when pushed, so each state is on the stack at most once and the stack needs one slot a state
        seen[state] = generation;
        int top = 0;
        stack[top++] = state;
        int added = size;
        while (top > 0) {
            int s = stack[--top];
            steps[0]++;
            switch (kinds[s]) {
                case SPLIT -> {
                    for (int t : targets[s]) {
                        top = push(t, stack, top, seen, generation);
                    }
                }
                case JUMP -> top = push(targets[s][0], stack, top, seen, generation);
                case STAR -> {
                    set[added++] = s;
                    top = push(s + 1, stack, top, seen, generation);
                }
                default -> set[added++] = s;
            }
        }
        return added;
    }

    private static int push(int state, int[] stack, int top, int[] seen, int generation) {
        if (seen[state] == generation) {
            return top;
        }
        seen[state] = generation;
        stack[top] = state;
        return top + 1;
    }

    /** @return whether this platform's file system takes the name (NUL is refused everywhere) */
    private static boolean validName(String name) {
        try {
            Path.of(name);
            return true;
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /**
     * @param globs patterns
     * @param name a file name
     * @return whether any of them matches
     */
    public static boolean any(List<NameGlob> globs, String name) {
        for (NameGlob g : globs) {
            if (g.matches(name)) {
                return true;
            }
        }
        return false;
    }

    /** @return the pattern as written */
    @Override
    public String toString() {
        return glob;
    }

    /** Turns a pattern into states, read left to right, in the grammar (and with the refusals) of the JDK's glob. */
    private static final class Compiler {
        private final String glob;
        private final List<Byte> kinds = new ArrayList<>();
        private final List<Integer> literals = new ArrayList<>();
        private final List<CharClass> classes = new ArrayList<>();
        private final List<int[]> targets = new ArrayList<>();
        private int i;

        Compiler(String glob) {
            this.glob = glob;
        }

        NameGlob compile() {
            int split = -1;
            List<Integer> starts = new ArrayList<>();
            List<Integer> jumps = new ArrayList<>();
            while (i < glob.length()) {
                int c = take();
                switch (c) {
                    case '\\' -> {
                        if (i == glob.length()) {
                            throw malformed("No character to escape");
                        }
                        add(LITERAL, take(), null, null);
                    }
                    case '[' -> add(CLASS, 0, bracket(), null);
                    case '{' -> {
                        if (split >= 0) {
                            throw malformed("Cannot nest groups");
                        }
                        split = add(SPLIT, 0, null, null);
                        starts.clear();
                        jumps.clear();
                        starts.add(kinds.size());
                    }
                    case ',' -> {
                        if (split >= 0) {
                            jumps.add(add(JUMP, 0, null, null));
                            starts.add(kinds.size());
                        } else {
                            add(LITERAL, c, null, null);
                        }
                    }
                    case '}' -> {
                        if (split >= 0) {
                            jumps.add(add(JUMP, 0, null, null));
                            for (int j : jumps) {
                                targets.set(j, new int[] {kinds.size()});
                            }
                            targets.set(split, starts.stream().mapToInt(Integer::intValue).toArray());
                            split = -1;
                        } else {
                            add(LITERAL, c, null, null);
                        }
                    }
                    case '*' -> {
                        if (i < glob.length() && glob.charAt(i) == '*') {
                            // ** crosses folders in a path; a name has none, so it is *
                            i++;
                        }
                        add(STAR, 0, null, null);
                    }
                    case '?' -> add(ANY, 0, null, null);
                    default -> add(LITERAL, c, null, null);
                }
            }
            if (split >= 0) {
                throw malformed("Missing '}");
            }
            add(MATCH, 0, null, null);
            byte[] k = new byte[kinds.size()];
            for (int s = 0; s < k.length; s++) {
                k[s] = kinds.get(s);
            }
            return new NameGlob(glob, k, literals.stream().mapToInt(Integer::intValue).toArray(),
                    classes.toArray(new CharClass[0]), targets.toArray(new int[0][]));
        }

        /** Reads a class after its {@code [}, through its {@code ]}. */
        private CharClass bracket() {
            List<Integer> ranges = new ArrayList<>();
            boolean negated = false;
            if (peek('^')) {
                // a regular expression's negation: here a plain character, as in the JDK's glob
                take();
                ranges.add((int) '^');
                ranges.add((int) '^');
            } else {
                if (peek('!')) {
                    take();
                    negated = true;
                }
                if (peek('-')) {
                    take();
                    ranges.add((int) '-');
                    ranges.add((int) '-');
                }
            }
            boolean rangeStart = false;
            while (i < glob.length()) {
                int c = take();
                if (c == ']') {
                    if (ranges.isEmpty()) {
                        throw malformed("Empty character class");
                    }
                    return new CharClass(negated, ranges.stream().mapToInt(Integer::intValue).toArray());
                }
                if (c == '/') {
                    throw malformed("Explicit 'name separator' in class");
                }
                if (c != '-') {
                    ranges.add(c);
                    ranges.add(c);
                    rangeStart = true;
                    continue;
                }
                if (!rangeStart) {
                    throw malformed("Invalid range");
                }
                if (i == glob.length()) {
                    break;
                }
                int end = take();
                if (end == ']') {
                    // a - before the closing bracket is a plain -
                    ranges.add((int) '-');
                    ranges.add((int) '-');
                    return new CharClass(negated, ranges.stream().mapToInt(Integer::intValue).toArray());
                }
                int start = ranges.get(ranges.size() - 1);
                if (end < start) {
                    throw malformed("Invalid range");
                }
                ranges.set(ranges.size() - 1, end);
                rangeStart = false;
            }
            throw malformed("Missing ']");
        }

        private boolean peek(char c) {
            return i < glob.length() && glob.charAt(i) == c;
        }

        private int take() {
            int c = glob.codePointAt(i);
            i += Character.charCount(c);
            return c;
        }

        private int add(byte kind, int literal, CharClass cls, int[] target) {
            kinds.add(kind);
            literals.add(literal);
            classes.add(cls);
            targets.add(target);
            return kinds.size() - 1;
        }

        private IllegalArgumentException malformed(String why) {
            return new IllegalArgumentException("the glob '" + glob + "' is malformed: " + why);
        }
    }
}
