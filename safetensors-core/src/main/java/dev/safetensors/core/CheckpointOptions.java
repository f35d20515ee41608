package dev.safetensors.core;

import dev.safetensors.Limits;

import java.util.Objects;

/**
 * How a checkpoint is opened: the {@link SourceRegistry} that opens and lists every location (the index, every
 * shard, {@code config.json}, repository listings), the {@link Limits} every header, index and config is held to,
 * and the {@link ReadOptions} tensor reads use. Taken by every entry point that opens more than one source
 * ({@link Checkpoint#open(String, CheckpointOptions)}, {@link CheckpointFiles#locate(String, String,
 * CheckpointOptions)}, {@link CheckpointMetadata#readAll(String, CheckpointOptions)}), so a client the caller
 * configured (an application's own {@code S3Client}, say) is used for every request and never replaced by a default.
 *
 * <pre>{@code
 * try (SourceRegistry registry = SourceRegistry.builder().provider(new S3SourceProvider(client)).build();
 *      Checkpoint c = Checkpoint.open("s3://bucket/model.safetensors.index.json",
 *              CheckpointOptions.builder().registry(registry).limits(Limits.OFFICIAL).build())) { ... }
 * }</pre>
 *
 * <p>Immutable and thread-safe. The options do not own the registry: closing it is the caller's job.
 */
public final class CheckpointOptions {
    private static final CheckpointOptions DEFAULTS = new Builder().build();

    private final SourceRegistry registry;
    private final Limits limits;
    private final ReadOptions readOptions;

    private CheckpointOptions(Builder b) {
        this.registry = b.registry;
        this.limits = b.limits;
        this.readOptions = b.readOptions;
    }

    /**
     * @return the installed providers ({@link Sources}' registry), {@link Limits#STRICT} and
     *         {@link ReadOptions#DEFAULT}
     */
    public static CheckpointOptions defaults() {
        return DEFAULTS;
    }

    /** @return a builder with the {@link #defaults()} values */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from these options */
    public Builder toBuilder() {
        Builder b = new Builder().limits(limits).readOptions(readOptions);
        b.registry = registry;
        return b;
    }

    /** @return the registry that opens and lists every location */
    public SourceRegistry registry() {
        // the default registry is built on first use, so options that only ever see local files load no backend
        return registry != null ? registry : Sources.defaultRegistry();
    }

    /** @return the policy for headers, indexes, configs and listings */
    public Limits limits() {
        return limits;
    }

    /** @return how tensor bytes are fetched from remote shards */
    public ReadOptions readOptions() {
        return readOptions;
    }

    @Override
    public String toString() {
        return "CheckpointOptions{registry=" + (registry == null ? "installed" : registry) + ", limits=" + limits + ", readOptions=" + readOptions + '}';
    }

    /** Builds {@link CheckpointOptions}; starts from the {@linkplain #defaults() defaults}. Not thread-safe. */
    public static final class Builder {
        /** {@code null} until one is given: the default registry, built when first asked for. */
        private SourceRegistry registry;
        private Limits limits = Limits.STRICT;
        private ReadOptions readOptions = ReadOptions.DEFAULT;

        private Builder() {
        }

        /**
         * @param registry opens and lists every location; the caller keeps ownership
         * @return this builder
         */
        public Builder registry(SourceRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * @param limits the policy for headers, indexes, configs and listings
         * @return this builder
         */
        public Builder limits(Limits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @param readOptions how tensor bytes are fetched from remote shards
         * @return this builder
         */
        public Builder readOptions(ReadOptions readOptions) {
            this.readOptions = Objects.requireNonNull(readOptions, "readOptions");
            return this;
        }

        /** @return the options */
        public CheckpointOptions build() {
            return new CheckpointOptions(this);
        }
    }
}
