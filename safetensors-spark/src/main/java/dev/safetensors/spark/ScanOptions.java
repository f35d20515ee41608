package dev.safetensors.spark;

import dev.safetensors.Limits;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;

/**
 * The options of one read, parsed once on the driver and shipped to the tasks. Unknown values are refused with an
 * {@link IllegalArgumentException} naming the option, as Spark's own sources do.
 */
record ScanOptions(Level level, boolean officialPolicy, Mode mode, String pathGlobFilter, boolean recursiveFileLookup,
                   boolean expandIndex, int filesPerPartition, int ioThreads, boolean sha256, DataMode data,
                   int maxTensorBytes, boolean allowEmpty, boolean allowUnreadable) implements Serializable {

    /**
     * Default {@code expandIndex}: an index names a checkpoint, so it is read as its shards, cross-checked; read as a
     * safetensors file it would only fail ({@code HEADER_TOO_LARGE} from its first eight bytes of JSON).
     */
    static final boolean DEFAULT_EXPAND_INDEX = true;
    /** Default {@code allowEmpty}: a load that selects no file fails, as a gate over a mistyped prefix must. */
    static final boolean DEFAULT_ALLOW_EMPTY = false;
    /** Default {@code allowUnreadable}: a folder the listing could not read fails the scan, never vanishes. */
    static final boolean DEFAULT_ALLOW_UNREADABLE = false;

    /** Default files per task: 10,000 local headers took under a second in 10 tasks, 19.6 s in one task per file. */
    static final int DEFAULT_FILES_PER_PARTITION = 1000;
    /** Default remote header reads in flight per task: a GET costs tens of ms, parsing a header a tenth of one. */
    static final int DEFAULT_IO_THREADS = 8;
    /** Default largest data cell: larger tensors become several chunk rows, so no row approaches Spark's 2 GB cap. */
    static final int DEFAULT_MAX_TENSOR_BYTES = 64 * 1024 * 1024;

    enum Level { TENSOR, FILE }

    enum Mode { PERMISSIVE, FAILFAST, DROPMALFORMED }

    enum DataMode { NONE, BINARY, FLOAT32 }

    static ScanOptions parse(Map<String, String> options) {
        Map<String, String> o = lowerCaseKeys(options);
        return new ScanOptions(
                choice(o, "level", Level.class, Level.TENSOR),
                choice(o, "policy", Policy.class, Policy.STRICT) == Policy.OFFICIAL,
                choice(o, "mode", Mode.class, Mode.PERMISSIVE),
                glob(o.getOrDefault("pathglobfilter", "*.safetensors")),
                bool(o, "recursivefilelookup", false),
                bool(o, "expandindex", DEFAULT_EXPAND_INDEX),
                positive(o, "filesperpartition", DEFAULT_FILES_PER_PARTITION, Integer.MAX_VALUE),
                positive(o, "iothreads", DEFAULT_IO_THREADS, 256),
                choice(o, "checksum", Checksum.class, Checksum.NONE) == Checksum.SHA256,
                choice(o, "data", DataMode.class, DataMode.NONE),
                positive(o, "maxtensorbytes", DEFAULT_MAX_TENSOR_BYTES, Integer.MAX_VALUE - 16),
                bool(o, "allowempty", DEFAULT_ALLOW_EMPTY),
                bool(o, "allowunreadable", DEFAULT_ALLOW_UNREADABLE));
    }

    /** Default bytes per task when tensor data is read: listed sizes split a prefix so no task reads far more. */
    static final long DEFAULT_MAX_PARTITION_BYTES = 1L << 30;

    /** @return the {@code pathGlobFilter}, compiled (checked when the options were parsed) */
    dev.safetensors.core.NameGlob glob() {
        return dev.safetensors.core.NameGlob.compile(pathGlobFilter);
    }

    /** @return the most bytes a task reads, by the listed sizes: unbounded when only headers are read */
    long maxPartitionBytes() {
        return data == DataMode.NONE ? Long.MAX_VALUE : DEFAULT_MAX_PARTITION_BYTES;
    }

    private static String glob(String pattern) {
        try {
            dev.safetensors.core.NameGlob.compile(pattern);
            return pattern;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option pathGlobFilter: " + e.getMessage(), e);
        }
    }

    Limits limits() {
        return officialPolicy ? Limits.OFFICIAL : Limits.STRICT;
    }

    /**
     * @return the library client of this read: the Spark source's registry ({@code fs.s3a.*}, Hadoop's
     *         filesystems), its policy, and {@code ioThreads} sources at once
     */
    dev.safetensors.core.SafetensorsClient client() {
        return dev.safetensors.core.SafetensorsClient.builder().registry(SparkSources.registry()).limits(limits())
                .concurrency(ioThreads).build();
    }

    private enum Policy { STRICT, OFFICIAL }

    private enum Checksum { NONE, SHA256 }

    private static Map<String, String> lowerCaseKeys(Map<String, String> options) {
        java.util.HashMap<String, String> m = new java.util.HashMap<>();
        options.forEach((k, v) -> m.put(k.toLowerCase(Locale.ROOT), v));
        return m;
    }

    private static <E extends Enum<E>> E choice(Map<String, String> o, String key, Class<E> type, E fallback) {
        String v = o.get(key);
        if (v == null) {
            return fallback;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(v.trim())) {
                return e;
            }
        }
        throw new IllegalArgumentException("option " + key + " is '" + v + "'; expected one of "
                + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT));
    }

    private static boolean bool(Map<String, String> o, String key, boolean fallback) {
        String v = o.get(key);
        if (v == null) {
            return fallback;
        }
        v = v.trim();
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw new IllegalArgumentException("option " + key + " is '" + v + "'; expected true or false");
    }

    private static int positive(Map<String, String> o, String key, int fallback, int max) {
        String v = o.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below with the accepted range
        }
        throw new IllegalArgumentException("option " + key + " is '" + v + "'; expected an integer from 1 to " + max);
    }
}
