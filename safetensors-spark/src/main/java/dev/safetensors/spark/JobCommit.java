package dev.safetensors.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.core.ShardIndex;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The driver's job commit for each layout: final names for the committed attempts' files (numbered in partition
 * order, known only now), the cross-task checks (duplicate names or keys, one shape per samples column), and the
 * index or manifest, published last.
 */
final class JobCommit {
    /** The samples layout's manifest. */
    static final String MANIFEST = "manifest.json";
    /** The keyed layout's index from key to file. */
    static final String KEY_INDEX = "index.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final WriteOptions options;
    private final Staging staging;
    private final List<Path> paths = new ArrayList<>();
    private final List<WrittenFile> files = new ArrayList<>();

    JobCommit(WriteOptions options, Staging staging, List<TaskFiles> tasks) {
        this.options = options;
        this.staging = staging;
        List<TaskFiles> ordered = new ArrayList<>(tasks);
        ordered.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
        for (TaskFiles t : ordered) {
            for (WrittenFile f : t.files()) {
                paths.add(Path.of(t.folder()).resolve(f.name()));
                files.add(f);
            }
        }
    }

    void commit() throws IOException {
        switch (options.layout()) {
            case CHECKPOINT -> checkpoint();
            case SAMPLES -> samples();
            default -> keyed();
        }
    }

    private void checkpoint() throws IOException {
        String single = options.prefix() + ".safetensors";
        if (files.isEmpty()) {
            Path empty = staging.folder().resolve("empty.safetensors");
            SafetensorsWriter.create().metadata(options.metadata()).writeTo(empty);
            staging.publish(Map.of(single, empty), null, null);
            return;
        }
        if (files.size() == 1) {
            staging.publish(Map.of(single, paths.get(0)), null, null);
            return;
        }
        int n = files.size();
        Map<String, Path> named = new LinkedHashMap<>();
        Map<String, String> weightMap = new LinkedHashMap<>();
        Map<String, SafetensorsHeader> headers = new HashMap<>();
        long total = 0;
        for (int i = 0; i < n; i++) {
            String name = dev.safetensors.core.ShardedWriter.shardName(options.prefix(), i + 1, n);
            named.put(name, paths.get(i));
            for (WrittenTensor t : files.get(i).tensors()) {
                if (weightMap.put(t.name(), name) != null) {
                    throw new InvalidHeaderException(ErrorCode.DUPLICATE_KEY, options.path(), "two rows (in"
                            + " different tasks) name this tensor", t.name(), -1);
                }
            }
            total += files.get(i).tensorBytes();
            try (SafetensorsFile f = SafetensorsFile.open(paths.get(i))) {
                headers.put(name, f.header());
            }
        }
        String indexName = options.prefix() + Location.INDEX_SUFFIX;
        byte[] bytes = ShardIndex.encode(total, weightMap);
        ShardIndex.parse(indexName, bytes).verifyAgainst(headers);
        staging.publish(named, indexName, bytes);
    }

    private void samples() throws IOException {
        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("layout", "samples");
        manifest.put("batch_size", options.batchSize());
        long rows = 0;
        Map<String, Path> named = new LinkedHashMap<>();
        ArrayNode list = JSON.createArrayNode();
        Map<String, long[]> firstShape = new HashMap<>();
        for (int i = 0; i < files.size(); i++) {
            WrittenFile f = files.get(i);
            String name = String.format(Locale.ROOT, "%s-%05d.safetensors", options.prefix(), i);
            named.put(name, paths.get(i));
            ObjectNode entry = list.addObject();
            entry.put("file", name);
            entry.put("rows", f.rows());
            ObjectNode tensors = entry.putObject("tensors");
            for (WrittenTensor t : f.tensors()) {
                long[] inner = Arrays.copyOfRange(t.shape(), 1, t.shape().length);
                long[] before = firstShape.putIfAbsent(t.name(), inner);
                if (before != null && !Arrays.equals(before, inner)) {
                    throw new InvalidHeaderException(ErrorCode.LENGTH_MISMATCH, options.path(), "rows of "
                            + Arrays.toString(inner) + " in " + name + " but " + Arrays.toString(before)
                            + " in an earlier file (every row of a samples column has the same shape)", t.name(), -1);
                }
                ObjectNode tn = tensors.putObject(t.name());
                tn.put("dtype", t.dtype());
                ArrayNode shape = tn.putArray("shape");
                Arrays.stream(t.shape()).forEach(shape::add);
            }
            rows += f.rows();
        }
        manifest.put("rows", rows);
        manifest.set("files", list);
        staging.publish(named, MANIFEST, json(manifest));
    }

    private void keyed() throws IOException {
        Map<String, Path> named = new LinkedHashMap<>();
        Map<String, String> keys = new LinkedHashMap<>();
        for (int i = 0; i < files.size(); i++) {
            String name = String.format(Locale.ROOT, "%s-%05d.safetensors", options.prefix(), i);
            named.put(name, paths.get(i));
            for (String k : files.get(i).keys()) {
                if (keys.put(k, name) != null) {
                    throw new InvalidHeaderException(ErrorCode.DUPLICATE_KEY, options.path(), "key " + k + " is in"
                            + " two tasks' rows; write with option duplicates=last to keep the last row of each key");
                }
            }
        }
        ObjectNode index = JSON.createObjectNode();
        index.put("layout", "keyed");
        index.put("key_column", options.key());
        ArrayNode list = index.putArray("files");
        named.keySet().forEach(list::add);
        ObjectNode map = index.putObject("keys");
        keys.forEach(map::put);
        staging.publish(named, KEY_INDEX, json(index));
    }

    private static byte[] json(ObjectNode node) throws IOException {
        return (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }
}
