package dev.safetensors.spark;

import dev.safetensors.TensorInfo;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringContains;
import org.apache.spark.sql.sources.StringEndsWith;
import org.apache.spark.sql.sources.StringStartsWith;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The filters on {@code tensor} and {@code dtype} that a task applies before it reads any tensor bytes: equality,
 * {@code IN}, prefix, suffix and substring, and {@code AND}/{@code OR} of those. Spark still evaluates every filter
 * after the scan, so this only saves work; it never decides a result on its own.
 */
final class TensorFilter implements Serializable {
    private static final long serialVersionUID = 1L;
    static final TensorFilter ALL = new TensorFilter(List.of());
    private final List<Filter> filters;

    private TensorFilter(List<Filter> filters) {
        this.filters = List.copyOf(filters);
    }

    /** @return a filter of those of {@code candidates} it can apply */
    static TensorFilter of(Filter[] candidates) {
        List<Filter> usable = new ArrayList<>();
        for (Filter f : candidates) {
            if (usable(f)) {
                usable.add(f);
            }
        }
        return new TensorFilter(usable);
    }

    Filter[] pushed() {
        return filters.toArray(new Filter[0]);
    }

    boolean matches(TensorInfo t) {
        for (Filter f : filters) {
            if (!test(f, t)) {
                return false;
            }
        }
        return true;
    }

    private static boolean usable(Filter f) {
        if (f instanceof And a) {
            return usable(a.left()) && usable(a.right());
        }
        if (f instanceof Or o) {
            return usable(o.left()) && usable(o.right());
        }
        String column = column(f);
        return column != null && (column.equals("tensor") || column.equals("dtype"));
    }

    private static String column(Filter f) {
        if (f instanceof EqualTo e && e.value() instanceof String) {
            return e.attribute();
        }
        if (f instanceof EqualNullSafe e && e.value() instanceof String) {
            return e.attribute();
        }
        if (f instanceof In in && Arrays.stream(in.values()).allMatch(v -> v instanceof String)) {
            return in.attribute();
        }
        if (f instanceof StringStartsWith s) {
            return s.attribute();
        }
        if (f instanceof StringEndsWith s) {
            return s.attribute();
        }
        if (f instanceof StringContains s) {
            return s.attribute();
        }
        return null;
    }

    private static boolean test(Filter f, TensorInfo t) {
        if (f instanceof And a) {
            return test(a.left(), t) && test(a.right(), t);
        }
        if (f instanceof Or o) {
            return test(o.left(), t) || test(o.right(), t);
        }
        String v = "tensor".equals(column(f)) ? t.name() : t.dtype().name();
        if (f instanceof EqualTo e) {
            return v.equals(e.value());
        }
        if (f instanceof EqualNullSafe e) {
            return v.equals(e.value());
        }
        if (f instanceof In in) {
            Set<Object> values = Arrays.stream(in.values()).collect(Collectors.toSet());
            return values.contains(v);
        }
        if (f instanceof StringStartsWith s) {
            return v.startsWith(s.value());
        }
        if (f instanceof StringEndsWith s) {
            return v.endsWith(s.value());
        }
        return v.contains(((StringContains) f).value());
    }
}
