package dev.safetensors.signing.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Paths inside a model: their canonical form, the ignore rule, and the order the reference implementation lists
 * resources in.
 */
public final class ModelPaths {
    /**
     * By path component, compared by code point, then by shard start: the order of the reference implementation,
     * which sorts path objects rather than strings (so {@code a/b} comes before {@code a.b}, and shard
     * {@code f:2:4} before {@code f:10:12}).
     */
    public static final Comparator<ModelHasher.Range> REFERENCE_ORDER = (a, b) -> {
        int byPath = comparePaths(a.file().path(), b.file().path());
        return byPath != 0 ? byPath : Long.compare(a.start(), b.start());
    };

    private ModelPaths() {
    }

    /**
     * @param path a relative path as a manifest may write it ({@code ./a//b}, {@code .})
     * @return it with {@code .} and empty components removed ({@code a/b}; empty for {@code .})
     */
    public static String canonical(String path) {
        List<String> parts = new ArrayList<>();
        for (String part : path.split("/")) {
            if (!part.isEmpty() && !part.equals(".")) {
                parts.add(part);
            }
        }
        return String.join("/", parts);
    }

    /**
     * The ignore rule of OMS 6.2.1: a path is ignored when it equals an ignore path or lies under one, both taken
     * relative to the model root.
     *
     * @param paths the ignore paths
     * @return the predicate over relative paths
     */
    public static Predicate<String> ignoring(Collection<String> paths) {
        TreeSet<String> canonical = new TreeSet<>();
        for (String path : paths) {
            String c = canonical(path);
            if (!c.isEmpty()) {
                canonical.add(c);
            }
        }
        return relative -> {
            for (String ignored : canonical) {
                if (relative.equals(ignored) || relative.startsWith(ignored + "/")) {
                    return true;
                }
            }
            return false;
        };
    }

    private static int comparePaths(String a, String b) {
        String[] x = a.split("/");
        String[] y = b.split("/");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = compareCodePoints(x[i], y[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    /** Python compares strings by code point; Java's {@link String#compareTo} by UTF-16 unit, which differs above U+FFFF. */
    private static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
