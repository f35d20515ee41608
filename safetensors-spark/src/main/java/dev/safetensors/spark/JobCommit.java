package dev.safetensors.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.core.ShardIndex;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The driver's job commit for each layout: final names for the committed attempts' files (for a local output
 * numbered in partition order, known only now; a store's objects keep the names their tasks uploaded them under),
 * the cross-task checks (duplicate names or keys, one shape per samples column), and the index or manifest,
 * published last. A store's checkpoint always gets an index, even of one shard: the local single-file
 * {@code PREFIX.safetensors} is a rename, which a store could only make as a copy.
 */
final class JobCommit {
    /** The samples layout's manifest. */
    static final String MANIFEST = "manifest.json";
    /** The keyed layout's index from key to file. */
    static final String KEY_INDEX = "index.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final WriteOptions options;
    private final JobOutput output;
    private final List<String> wheres = new ArrayList<>();
    private final List<WrittenFile> files = new ArrayList<>();

    JobCommit(WriteOptions options, JobOutput output, List<TaskFiles> tasks) {
        this.options = options;
        this.output = output;
        List<TaskFiles> ordered = new ArrayList<>(tasks);
        ordered.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
        for (TaskFiles t : ordered) {
            for (WrittenFile f : t.files()) {
                wheres.add(output.where(t, f));
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
            ByteArrayOutputStream empty = new ByteArrayOutputStream();
            SafetensorsWriter.create().metadata(options.metadata()).writeTo(empty);
            output.publish(Map.of(), single, empty.toByteArray());
            return;
        }
        if (files.size() == 1 && !output.keepsNames()) {
            output.publish(Map.of(single, wheres.get(0)), null, null);
            return;
        }
        int n = files.size();
        Map<String, String> named = new LinkedHashMap<>();
        Map<String, String> weightMap = new LinkedHashMap<>();
        Map<String, SafetensorsHeader> headers = new HashMap<>();
        long total = 0;
        for (int i = 0; i < n; i++) {
            String name = output.keepsNames() ? files.get(i).name()
                    : dev.safetensors.core.ShardedWriter.shardName(options.prefix(), i + 1, n);
            named.put(name, wheres.get(i));
            for (WrittenTensor t : files.get(i).tensors()) {
                if (weightMap.put(t.name(), name) != null) {
                    throw new InvalidHeaderException(ErrorCode.DUPLICATE_KEY, options.path(), "two rows (in"
                            + " different tasks) name this tensor", t.name(), -1);
                }
            }
            total += files.get(i).tensorBytes();
            headers.put(name, output.header(wheres.get(i)));
        }
        String indexName = options.prefix() + Location.INDEX_SUFFIX;
        byte[] bytes = ShardIndex.encode(total, weightMap);
        ShardIndex.parse(indexName, bytes).verifyAgainst(headers);
        output.publish(named, indexName, bytes);
    }

    private void samples() throws IOException {
        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("layout", "samples");
        manifest.put("batch_size", options.batchSize());
        long rows = 0;
        Map<String, String> named = new LinkedHashMap<>();
        ArrayNode list = JSON.createArrayNode();
        Map<String, long[]> firstShape = new HashMap<>();
        for (int i = 0; i < files.size(); i++) {
            WrittenFile f = files.get(i);
            String name = name(i);
            named.put(name, wheres.get(i));
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
        output.publish(named, MANIFEST, json(manifest));
    }

    private void keyed() throws IOException {
        Map<String, String> named = new LinkedHashMap<>();
        Map<String, String> keys = new LinkedHashMap<>();
        for (int i = 0; i < files.size(); i++) {
            String name = name(i);
            named.put(name, wheres.get(i));
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
        output.publish(named, KEY_INDEX, json(index));
    }

    /** @return the final name of the i-th file of a samples or keyed output */
    private String name(int i) {
        return output.keepsNames() ? files.get(i).name()
                : String.format(Locale.ROOT, "%s-%05d.safetensors", options.prefix(), i);
    }

    private static byte[] json(ObjectNode node) throws IOException {
        return (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }
}
