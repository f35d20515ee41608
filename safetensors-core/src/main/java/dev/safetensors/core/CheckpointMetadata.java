package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;
import dev.safetensors.TensorInfo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import dev.safetensors.core.internal.index.ParameterCounter;
import dev.safetensors.core.internal.index.QuantizationConfig;

/**
 * Everything the headers of a checkpoint say, in one call, as {@code huggingface_hub.get_safetensors_metadata} and
 * huggingface.js {@code parseSafetensorsMetadata} give it: each shard's validated header, the tensors, parameters
 * and bytes by dtype, the commit a repository resolved to, and the requests it took. The index and headers are
 * cross-checked ({@link Checkpoint#open}); no tensor data is read.
 *
 * <p>Parameters are counted as the model has them when the checkpoint's {@code config.json} declares a
 * {@code quantization_config} (GPTQ, AWQ, bitsandbytes 4-bit, MXFP4, compressed-tensors: packed weights count the
 * values they pack, quantization scales and zero points count nothing; see {@link #counting()}), and as stored
 * elements otherwise. {@code config.json} is read when a repository listing names it or when it lies beside a
 * local checkpoint; one request more on the Hub.
 *
 * @param files           where the checkpoint's files are
 * @param headers         each file's validated header, in the order of {@link CheckpointFiles#shards()}
 * @param tensorCount     the number of tensors
 * @param parameters      parameters by dtype, in dtype order (for packed weights, by the dtype that stores them)
 * @param bytes           tensor bytes by dtype, in dtype order
 * @param fromConfig      whether the parameter counts were derived from a {@code quantization_config}
 * @param counting        how the parameters were counted, in words, for output
 * @param cost            the requests made: listing, index, headers and config
 */
public record CheckpointMetadata(CheckpointFiles files, List<SafetensorsHeader> headers, int tensorCount,
                                 Map<DType, Long> parameters, Map<DType, Long> bytes, boolean fromConfig,
                                 String counting, SourceStatistics cost) {

    /**
     * Copies the collections and checks that nothing is {@code null}.
     *
     * @param files where the files are
     * @param headers each file's validated header
     * @param tensorCount the number of tensors
     * @param parameters parameters by dtype
     * @param bytes tensor bytes by dtype
     * @param fromConfig whether counted from a {@code quantization_config}
     * @param counting how the parameters were counted
     * @param cost the requests made
     */
    public CheckpointMetadata {
        Objects.requireNonNull(files, "files");
        headers = List.copyOf(headers);
        parameters = Collections.unmodifiableMap(new EnumMap<>(parameters));
        bytes = Collections.unmodifiableMap(new EnumMap<>(bytes));
        Objects.requireNonNull(counting, "counting");
        Objects.requireNonNull(cost, "cost");
    }

    /**
     * Reads every checkpoint at a location with the {@linkplain SafetensorsClient#defaultClient() default client}, as
     * {@link SafetensorsClient#readAllMetadata(Location)}: each one a repository lists ({@code hf://acme/pipeline}
     * gives one per diffusers component), or the one file or index named.
     *
     * @param location a file, an index or a repository, as a path or a URI
     * @return one entry per checkpoint; the repository listing's request is counted in the first
     * @throws IOException if nothing is found, a header, index or the pair of them is invalid, or a request fails
     */
    public static List<CheckpointMetadata> readAll(String location) throws IOException {
        return SafetensorsClient.defaultClient().readAllMetadata(Location.parse(location));
    }

    /**
     * @param location a file, an index or a repository
     * @param folder   for a repository, the folder of the checkpoint ({@code ""} for the root), or {@code null} for
     *                 the default ({@link SafetensorsClient#locate(Location, String)})
     * @return that checkpoint's metadata, read with the default client
     * @throws IOException as {@link #readAll}
     */
    public static CheckpointMetadata read(String location, String folder) throws IOException {
        SafetensorsClient client = SafetensorsClient.defaultClient();
        return client.readMetadata(client.locate(Location.parse(location), folder));
    }

    /** What {@link SafetensorsClient#readMetadata(CheckpointFiles)} does. */
    static CheckpointMetadata read(CheckpointFiles files, SafetensorsClient options) throws IOException {
        List<SafetensorsHeader> headers;
        SourceStatistics cost;
        try (Checkpoint c = Checkpoint.open(files, options)) {
            headers = c.headers();
            cost = c.statistics();
        }
        return of(files, headers, cost, options);
    }

    /** The metadata of validated, cross-checked headers: only {@code config.json} is read. */
    static CheckpointMetadata of(CheckpointFiles files, List<SafetensorsHeader> headers, SourceStatistics cost,
                                 SafetensorsClient options) throws IOException {
        Optional<QuantizationConfig> quantization = Optional.empty();
        String counting = "stored elements: no config.json was found beside the checkpoint";
        if (files.config().isPresent()) {
            Location config = files.config().get();
            int max = options.checkpointLimits().maxConfigBytes();
            try (RandomAccessSource source = options.registry().open(config)) {
                try {
                    quantization = QuantizationConfig.parse(config.display(), readSmall(source, max), max);
                    counting = "stored elements: config.json declares no quantization_config";
                } catch (InvalidHeaderException e) {
                    counting = "stored elements: config.json could not be used (" + e.detail() + ")";
                } finally {
                    cost = cost.plus(source.statistics());
                }
            }
        }
        ParameterCounter counter = new ParameterCounter(quantization.orElse(null));
        if (quantization.isPresent()) {
            counting = "derived from config.json quantization_config (" + quantization.get().describe() + ")";
        }
        Map<DType, Long> parameters = new EnumMap<>(DType.class);
        Map<DType, Long> bytes = new EnumMap<>(DType.class);
        int tensors = 0;
        for (SafetensorsHeader h : headers) {
            for (TensorInfo t : h.tensors()) {
                tensors++;
                parameters.merge(t.dtype(), counter.count(t), Math::addExact);
                bytes.merge(t.dtype(), t.byteLength(), Math::addExact);
            }
        }
        parameters.values().removeIf(n -> n == 0);
        return new CheckpointMetadata(files, headers, tensors, parameters, bytes, quantization.isPresent(), counting,
                cost);
    }

    /** @return the sum of {@link #parameters()} */
    public long totalParameters() {
        return parameters.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return the sum of {@link #bytes()} */
    public long totalBytes() {
        return bytes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return the commit a repository's revision resolved to, when the checkpoint came from one */
    public Optional<String> commit() {
        return Optional.ofNullable(files.identity().revision());
    }

    /** Reads a whole small file: one read of up to the limit, which also tells the size. */
    private static byte[] readSmall(RandomAccessSource source, int max) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(max + 1);
        while (buffer.hasRemaining()) {
            int n = source.read(buffer.position(), buffer);
            if (n < 0) {
                break;
            }
        }
        return Arrays.copyOf(buffer.array(), buffer.position());
    }
}
