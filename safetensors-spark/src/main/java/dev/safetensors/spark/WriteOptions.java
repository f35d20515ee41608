package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.core.Alignment;
import dev.safetensors.core.ByteSize;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The options of one write, parsed once on the driver and shipped to the tasks. A value out of range is an
 * {@link IllegalArgumentException} naming the option; docs/spark.md describes each.
 *
 * @param path          the output folder
 * @param layout        what the rows become
 * @param overwrite     whether an existing output is replaced (SaveMode overwrite) rather than refused
 * @param prefix        the start of the checkpoint's file names
 * @param maxShardSize  the largest sum of tensor bytes in one checkpoint shard or keyed file
 * @param alignment     0 for the default layout, -1 for {@code dtype}, else a power of two
 * @param metadata      the {@code metadata.*} options, written into every file
 * @param dtype         the target dtype of every value column, or null for the natural one
 * @param columnDtypes  {@code dtype.COLUMN} overrides
 * @param batchSize     rows per samples file
 * @param shortBatch    what becomes of a task's last short batch
 * @param key           the keyed layout's key column
 * @param duplicates    what a repeated key does (keyed layout)
 * @param failPartitions a test hook: partitions whose attempt 0 fails after writing its first row
 */
record WriteOptions(String path, Layout layout, boolean overwrite, String prefix, long maxShardSize, int alignment,
                    Map<String, String> metadata, DType dtype, Map<String, DType> columnDtypes, int batchSize,
                    ShortBatch shortBatch, String key, Duplicates duplicates, String failPartitions)
        implements Serializable {
    /** The default {@code maxShardSize}, the Hub's {@code save_torch_state_dict} default. */
    static final String DEFAULT_MAX_SHARD_SIZE = "5GB";
    /** The default {@code batchSize} of the samples layout. */
    static final int DEFAULT_BATCH_SIZE = 1024;
    /** The option the driver sets for the write job it starts: {@code overwrite} or {@code create}. */
    static final String SAVE_MODE = "__safetensors_save_mode";

    /** The three layouts. */
    enum Layout { CHECKPOINT, SAMPLES, KEYED }

    /** The last short batch of a task in the samples layout. */
    enum ShortBatch { KEEP, DROP, PAD }

    /** A key seen twice in the keyed layout: refused, or the last row wins. */
    enum Duplicates { ERROR, LAST }

    static WriteOptions parse(Map<String, String> properties) {
        CaseInsensitiveStringMap o = new CaseInsensitiveStringMap(properties);
        String path = o.get("path");
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("no output folder given: save(path) or option(\"path\", ...)");
        }
        Layout layout = choice(o, "layout", Layout.class, null);
        if (layout == null) {
            throw new IllegalArgumentException("option layout is required to write: checkpoint, samples or keyed");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        Map<String, DType> columnDtypes = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String k = e.getKey();
            if (k.regionMatches(true, 0, "metadata.", 0, 9) && k.length() > 9) {
                metadata.put(k.substring(9), e.getValue());
            } else if (k.regionMatches(true, 0, "dtype.", 0, 6) && k.length() > 6) {
                columnDtypes.put(k.substring(6), dtype("option " + k, e.getValue()));
            }
        }
        String d = o.get("dtype");
        String key = o.get("key");
        if (layout == Layout.KEYED && (key == null || key.isBlank())) {
            throw new IllegalArgumentException("layout keyed needs option key: the column that names each row");
        }
        String prefix = o.getOrDefault("prefix", layout == Layout.CHECKPOINT ? "model" : "part");
        if (!prefix.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,199}")) {
            throw new IllegalArgumentException("option prefix is '" + prefix + "'; expected a plain file name of"
                    + " letters, digits, '.', '_' and '-'");
        }
        return new WriteOptions(path, layout, "overwrite".equalsIgnoreCase(o.get(SAVE_MODE)), prefix,
                ByteSize.parse(o.getOrDefault(layout == Layout.KEYED ? "maxFileSize" : "maxShardSize",
                        DEFAULT_MAX_SHARD_SIZE)),
                alignment(o.get("alignment")), java.util.Collections.unmodifiableMap(metadata), d == null ? null : dtype("option dtype", d),
                java.util.Collections.unmodifiableMap(columnDtypes), integer(o, "batchSize", DEFAULT_BATCH_SIZE),
                choice(o, "shortBatch", ShortBatch.class, ShortBatch.KEEP), key,
                choice(o, "duplicates", Duplicates.class, Duplicates.ERROR), o.getOrDefault("testFailFirstAttempt",
                        ""));
    }

    /** @return the payload layout of every file written */
    Alignment payloadAlignment() {
        return alignment == 0 ? Alignment.INSERTION_ORDER : alignment < 0 ? Alignment.DTYPE
                : Alignment.bytes(alignment);
    }

    /** @return the target dtype of a column: its {@code dtype.COLUMN}, else {@code dtype}, else null */
    DType dtypeOf(String column) {
        for (Map.Entry<String, DType> e : columnDtypes.entrySet()) {
            if (e.getKey().equalsIgnoreCase(column)) {
                return e.getValue();
            }
        }
        return dtype;
    }

    /** @return whether the test hook fails attempt 0 of this partition */
    boolean failsFirstAttempt(int partition) {
        for (String p : failPartitions.split(",")) {
            if (p.trim().equals(Integer.toString(partition))) {
                return true;
            }
        }
        return false;
    }

    private static int alignment(String v) {
        if (v == null || v.equalsIgnoreCase("none")) {
            return 0;
        }
        if (v.equalsIgnoreCase("dtype")) {
            return -1;
        }
        try {
            int n = Integer.parseInt(v.trim());
            Alignment.bytes(n);
            return n;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option alignment is '" + v + "'; expected none, dtype or a power of"
                    + " two from 8 to " + Alignment.MAX_BYTES, e);
        }
    }

    static DType dtype(String what, String v) {
        return DType.fromName(v.trim().toUpperCase(Locale.ROOT)).orElseThrow(() -> new IllegalArgumentException(
                what + " is '" + v + "'; expected a safetensors dtype such as F32, F16, BF16, F64, I64, I32"));
    }

    private static <E extends Enum<E>> E choice(CaseInsensitiveStringMap o, String key, Class<E> type, E dflt) {
        String v = o.get(key);
        if (v == null) {
            return dflt;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(v.trim())) {
                return e;
            }
        }
        throw new IllegalArgumentException("option " + key + " is '" + v + "'; expected one of "
                + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT));
    }

    private static int integer(CaseInsensitiveStringMap o, String key, int dflt) {
        String v = o.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("option " + key + " is '" + v + "'; expected a positive integer");
    }
}
