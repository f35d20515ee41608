package dev.safetensors.cli.results;

import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.TensorTotals;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Everything the command learned about one source: the verdict, the checks performed, what the file holds, and
 * what finding it out cost. Both output formats are written from this alone. Immutable; built with {@link Builder}.
 */
public final class SourceResult {
    /** What kind of source a result is about. */
    public enum Kind {
        /** A file given as a source. */
        FILE,
        /** One shard of a sharded checkpoint. */
        SHARD,
        /** A sharded checkpoint as a whole: the index, its shards and their consistency. */
        CHECKPOINT
    }

    private final String source;
    private final Kind kind;
    private final Failure failure;
    private final long fileBytes;
    private final SafetensorsHeader header;
    private final TensorTotals totals;
    private final Map<String, String> metadata;
    private final Map<Check, Boolean> checks;
    private final SourceStatistics cost;
    private final SourceStatistics shardsCost;
    private final long indexTotalSize;
    private final Map<String, String> attributes;
    private final String checkpoint;
    private final int shardCount;
    private final String sha256;
    private final String sha256ComparedWith;
    private final String parameterCounting;

    private SourceResult(Builder b) {
        this.source = b.source;
        this.kind = b.kind;
        this.failure = b.failure;
        this.header = b.header;
        this.totals = b.totals != null ? b.totals : b.header != null ? TensorTotals.of(b.header) : null;
        this.fileBytes = totals != null ? totals.fileBytes() : b.fileBytes;
        this.metadata = b.header != null ? b.header.metadata() : Map.of();
        this.checks = Collections.unmodifiableMap(new EnumMap<>(b.checks));
        this.cost = b.cost;
        this.shardsCost = b.shardsCost;
        this.indexTotalSize = b.indexTotalSize;
        this.attributes = Collections.unmodifiableMap(new TreeMap<>(b.attributes));
        this.checkpoint = b.checkpoint;
        this.shardCount = b.shardCount;
        this.sha256 = b.sha256;
        this.sha256ComparedWith = b.sha256ComparedWith;
        this.parameterCounting = b.parameterCounting;
    }

    /**
     * @param source the source's name as shown
     * @param kind   what kind of source it is
     * @return a builder for its result
     */
    public static Builder builder(String source, Kind kind) {
        return new Builder(source, kind);
    }

    /** @return how a checkpoint's parameters were counted, in words, when that was decided */
    public Optional<String> parameterCounting() {
        return Optional.ofNullable(parameterCounting);
    }

    /** @return the source's name as shown */
    public String source() {
        return source;
    }

    /** @return what kind of source this is */
    public Kind kind() {
        return kind;
    }

    /** @return the verdict */
    public Status status() {
        return failure == null ? Status.VALID : failure.status();
    }

    /** @return why it is not valid, if it is not */
    public Optional<Failure> failure() {
        return Optional.ofNullable(failure);
    }

    /** @return the size of the file (or of all shards), when it is known */
    public OptionalLong fileBytes() {
        return fileBytes < 0 ? OptionalLong.empty() : OptionalLong.of(fileBytes);
    }

    /** @return the validated header of a file or shard, if it passed header validation */
    public Optional<SafetensorsHeader> header() {
        return Optional.ofNullable(header);
    }

    /** @return what the file or checkpoint holds, when its header(s) could be read */
    public Optional<TensorTotals> totals() {
        return Optional.ofNullable(totals);
    }

    /** @return the header's {@code __metadata__}; empty for a checkpoint, whose index's total size is apart */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** @return each check performed and whether it passed, in {@link Check} order */
    public Map<Check, Boolean> checks() {
        return checks;
    }

    /**
     * @return the read requests made, bytes fetched and HTTP exchanges sent for this result alone: for a checkpoint,
     *         its index and listing, never its shards again (each shard's result counts its own), so the results of
     *         a run add up to what went on the wire
     */
    public SourceStatistics cost() {
        return cost;
    }

    /** @return for a checkpoint, what reading its shards cost, as their own results count it; otherwise none */
    public SourceStatistics shardsCost() {
        return shardsCost;
    }

    /** @return for a checkpoint, the {@code total_size} its index declares (tensor bytes), when it declares one */
    public OptionalLong indexTotalSize() {
        return indexTotalSize < 0 ? OptionalLong.empty() : OptionalLong.of(indexTotalSize);
    }

    /** @return what the source reported about itself (repository, revision, etag, version, linked_etag), by name */
    public Map<String, String> attributes() {
        return attributes;
    }

    /** @return for a shard, the checkpoint (index or repository) it belongs to */
    public Optional<String> checkpoint() {
        return Optional.ofNullable(checkpoint);
    }

    /** @return for a checkpoint, the number of shards its index names; otherwise -1 */
    public int shardCount() {
        return shardCount;
    }

    /** @return the SHA-256 computed locally over the whole object, in lower-case hex, if it was computed */
    public Optional<String> sha256() {
        return Optional.ofNullable(sha256);
    }

    /** @return what the computed SHA-256 was compared with, such as {@code --sha256}, if it was compared */
    public Optional<String> sha256ComparedWith() {
        return Optional.ofNullable(sha256ComparedWith);
    }

    /** Assembles a {@link SourceResult}. Not thread-safe. */
    public static final class Builder {
        private final String source;
        private final Kind kind;
        private Failure failure;
        private long fileBytes = -1;
        private SafetensorsHeader header;
        private TensorTotals totals;
        private final Map<Check, Boolean> checks = new EnumMap<>(Check.class);
        private SourceStatistics cost = SourceStatistics.NONE;
        private SourceStatistics shardsCost = SourceStatistics.NONE;
        private long indexTotalSize = -1;
        private final Map<String, String> attributes = new LinkedHashMap<>();
        private String checkpoint;
        private int shardCount = -1;
        private String sha256;
        private String sha256ComparedWith;
        private String parameterCounting;

        private Builder(String source, Kind kind) {
            this.source = source;
            this.kind = kind;
        }

        /**
         * Records a failure (the first one wins) and marks its check, if it names one, as failed.
         *
         * @param f the failure
         * @return this builder
         */
        public Builder fail(Failure f) {
            if (failure == null) {
                failure = f;
            }
            if (f.check() != null) {
                checks.put(f.check(), false);
            }
            return this;
        }

        /**
         * Records a check that passed.
         *
         * @param check the check that passed
         * @return this builder
         */
        public Builder pass(Check check) {
            checks.putIfAbsent(check, true);
            return this;
        }

        /**
         * Records the validated header; its totals and metadata follow from it.
         *
         * @param h the validated header
         * @return this builder
         */
        public Builder header(SafetensorsHeader h) {
            header = h;
            return this;
        }

        /**
         * Records totals that come from no single header (a checkpoint's sum).
         *
         * @param t the totals
         * @return this builder
         */
        public Builder totals(TensorTotals t) {
            totals = t;
            return this;
        }

        /**
         * Records the object size when no header says it.
         *
         * @param n the figure
         * @return this builder
         */
        public Builder fileBytes(long n) {
            fileBytes = n;
            return this;
        }

        /**
         * Adds to the requests, bytes and exchanges counted so far.
         *
         * @param more what to add
         * @return this builder
         */
        public Builder cost(SourceStatistics more) {
            cost = cost.plus(more);
            return this;
        }

        /**
         * Adds to what a checkpoint's shards cost, which their own results report.
         *
         * @param more what to add
         * @return this builder
         */
        public Builder shardsCost(SourceStatistics more) {
            shardsCost = shardsCost.plus(more);
            return this;
        }

        /**
         * Records the {@code total_size} a checkpoint's index declares.
         *
         * @param n the figure
         * @return this builder
         */
        public Builder indexTotalSize(long n) {
            indexTotalSize = n;
            return this;
        }

        /**
         * Adds what the source reports about itself; existing keys are kept.
         *
         * @param more what to add
         * @return this builder
         */
        public Builder attributes(Map<String, String> more) {
            more.forEach(attributes::putIfAbsent);
            return this;
        }

        /**
         * Names the checkpoint a shard belongs to.
         *
         * @param name the checkpoint's name, as shown
         * @return this builder
         */
        public Builder checkpoint(String name) {
            checkpoint = name;
            return this;
        }

        /**
         * Records how a checkpoint's parameters were counted.
         *
         * @param how how the parameters were counted, as shown
         * @return this builder
         */
        public Builder parameterCounting(String how) {
            parameterCounting = how;
            return this;
        }

        /**
         * Records a checkpoint's shard count.
         *
         * @param n the figure
         * @return this builder
         */
        public Builder shardCount(int n) {
            shardCount = n;
            return this;
        }

        /**
         * Records the locally computed SHA-256.
         *
         * @param hex the digest in lower-case hex
         * @return this builder
         */
        public Builder sha256(String hex) {
            sha256 = hex;
            return this;
        }

        /**
         * Records what the computed SHA-256 was compared with.
         *
         * @param what what it was compared with, as shown
         * @return this builder
         */
        public Builder sha256ComparedWith(String what) {
            sha256ComparedWith = what;
            return this;
        }

        /** @return the failure recorded so far, if any */
    public Optional<Failure> failure() {
            return Optional.ofNullable(failure);
        }

        /**
         * Adds to the recorded failure's message what was learnt after it (a prefix of the same name that holds
         * files); nothing without a failure.
         *
         * @param more the text to append
         * @return this builder
         */
        public Builder hint(String more) {
            if (failure != null) {
                failure = new Failure(failure.status(), failure.code(), failure.message() + more, failure.check(),
                        failure.cause());
            }
            return this;
        }

        /** @return whether a failure has been recorded */
        public boolean failed() {
            return failure != null;
        }

        /** @return whether the recorded failure is a verdict on the content: a check failed, so the header was read */
        public boolean failedOnContent() {
            return failure != null && failure.check() != null;
        }

        /** @return the verdict so far */
    public Status status() {
            return failure == null ? Status.VALID : failure.status();
        }

        /** @return the result */
        public SourceResult build() {
            return new SourceResult(this);
        }
    }
}
