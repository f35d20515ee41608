package dev.safetensors.core;

import java.nio.file.FileSystems;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.Objects;
import java.util.regex.PatternSyntaxException;

/**
 * A glob matched against one file name (the last segment of a location, never the folders above it), with the
 * syntax of {@link java.nio.file.FileSystem#getPathMatcher}: {@code *}, {@code ?}, {@code [abc]}, {@code &#123;a,b&#125;}.
 * The command's {@code --include}/{@code --exclude} and the Spark source's {@code pathGlobFilter} use it, so a
 * pattern means the same in both. Immutable.
 */
public final class NameGlob {
    /** The files a folder or prefix is checked for by default. */
    public static final String DEFAULT_INCLUDE = "*" + dev.safetensors.Location.FILE_SUFFIX;
    /** The shard indexes a folder or prefix is checked for by default, beside {@link #DEFAULT_INCLUDE}. */
    public static final String DEFAULT_INDEX_INCLUDE = "*" + dev.safetensors.Location.INDEX_SUFFIX;

    private final String glob;
    private final PathMatcher matcher;

    private NameGlob(String glob, PathMatcher matcher) {
        this.glob = glob;
        this.matcher = matcher;
    }

    /**
     * @param glob the pattern
     * @return the compiled pattern
     * @throws IllegalArgumentException if the pattern is empty or malformed (an unclosed bracket or brace),
     *                                  with the pattern and the reason in its message
     */
    public static NameGlob compile(String glob) {
        Objects.requireNonNull(glob, "glob");
        if (glob.isEmpty()) {
            throw new IllegalArgumentException("the glob is empty: give a pattern such as *.safetensors");
        }
        try {
            return new NameGlob(glob, FileSystems.getDefault().getPathMatcher("glob:" + glob));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("the glob '" + glob + "' is malformed: " + e.getDescription(), e);
        }
    }

    /**
     * @param name a file name
     * @return whether the glob matches it; a name that is not a valid file name on this platform matches nothing
     */
    public boolean matches(String name) {
        if (name.isEmpty() || name.indexOf('/') >= 0) {
            return false;
        }
        try {
            return matcher.matches(Path.of(name));
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
}
