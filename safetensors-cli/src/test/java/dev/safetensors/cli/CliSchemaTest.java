package dev.safetensors.cli;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every subcommand's {@code --json} output, valid and failing, against the schema shipped as docs/cli.schema.json:
 * each line validates, every line kind is seen, one name for one thing across subcommands ({@code source},
 * {@code size}, {@code status}), a run closes with its {@code summary}, and the lines' requests add up to what the
 * run read. The schema refuses a renamed field, so a change of vocabulary fails here until the schema and docs follow.
 */
class CliSchemaTest {
    private static final Path SCHEMA = Path.of("..", "docs", "cli.schema.json");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;
    private FakeHub hub;
    private Map<String, String> env;
    private Schema schema;
    private final Set<String> kinds = new TreeSet<>();
    private final Set<String> commands = new TreeSet<>();

    @BeforeEach
    void start() throws IOException {
        hub = new FakeHub();
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
        schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(SCHEMA));
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    @Test
    void everyLineOfEverySubcommandValidatesAgainstTheShippedSchema() throws Exception {
        Path sample = Fixtures.write(dir, "sample.safetensors", Fixtures.small().build());
        Path index = Fixtures.twoShards(dir.resolve("sharded"));
        Path broken = Fixtures.write(dir.resolve("mixed"), "broken.safetensors", "nope");
        Fixtures.write(dir.resolve("mixed"), "ok.safetensors", Fixtures.small().build());
        Path empty = Files.createDirectory(dir.resolve("empty"));
        hub.repository("acme/tiny", Map.of("model.safetensors", Fixtures.small().build()));
        String digest = Fixtures.sha256(sample);
        long size = Files.size(sample);

        lines(InProcess.run("validate", "--json", sample.toString(), index.toString()).exits(0));
        lines(InProcess.run("validate", "--json", "--recursive", dir.resolve("mixed").toString()).exits(1));
        lines(InProcess.run("validate", "--json", dir.resolve("missing.safetensors").toString()).exits(3));
        lines(InProcess.run("validate", "--json", empty + "/").exits(3));
        lines(InProcess.run("validate", "--json", "--bogus", sample.toString()).exits(2));
        lines(InProcess.run("inspect", "--json", "--tensors", sample.toString(), index.toString()).exits(0));
        lines(InProcess.run(env, "inspect", "--json", "hf://acme/tiny").exits(0));
        lines(InProcess.run("verify", "--json", sample.toString(), "--sha256", digest, "--size", Long.toString(size))
                .exits(0));
        lines(InProcess.run("verify", "--json", sample.toString(), "--sha256", "0".repeat(64)).exits(1));

        Cli.Run manifest = InProcess.run("manifest", "--json", sample.toString(), index.toString()).exits(0);
        valid(JSON.readTree(manifest.out()), "manifest");
        Path manifestFile = Files.write(dir.resolve("m.json"), manifest.stdout());
        lines(InProcess.run("verify", "--json", "--manifest", manifestFile.toString()).exits(0));
        lines(InProcess.run("verify", "--json", "--manifest", manifestFile.toString(), dir.resolve("sharded") + "/")
                .exits(0));

        List<JsonNode> unread = lines(InProcess.run("verify", "--json", "--manifest",
                dir.resolve("none.json").toString()).exits(3));
        assertEquals("NOT_FOUND", unread.get(unread.size() - 1).get("code").asString(), unread.toString());
        Path notManifest = Files.writeString(dir.resolve("not.json"), "{\"files\": []}");
        List<JsonNode> refused = lines(InProcess.run("verify", "--json", "--manifest", notManifest.toString())
                .exits(2));
        assertEquals(List.of("usage"), refused.stream().map(l -> l.get("kind").asString()).toList());

        lines(InProcess.run("dump", "--json", sample.toString(), "weight", "--out", dir.resolve("w.bin").toString())
                .exits(0));
        lines(InProcess.run("dump", "--json", sample.toString(), "nope", "--out", dir.resolve("n.bin").toString())
                .exits(2));
        lines(InProcess.run("reshard", "--json", "--quiet", index.toString(), "--single", "--out",
                dir.resolve("merged").toString()).exits(0));
        lines(InProcess.run("reshard", "--json", "--quiet", sample.toString(), "--max-shard-size", "30B", "--out",
                dir.resolve("split").toString()).exits(0));
        lines(InProcess.run("reshard", "--json", "--quiet", dir.resolve("missing.safetensors").toString(), "--out",
                dir.resolve("never").toString()).exits(3));
        Path mirror = dir.resolve("mirror");
        lines(InProcess.run(env, "download", "--json", "hf://acme/tiny", "--out", mirror.toString()).exits(0));
        lines(InProcess.run(env, "download", "--json", "hf://acme/tiny", "--out", mirror.toString()).exits(0));
        lines(InProcess.run("download", "--json", index.toString(), "--out", dir.resolve("local").toString())
                .exits(0));
        lines(InProcess.run("download", "--json", broken.toString(), "--out", dir.resolve("refused").toString())
                .exits(1));
        lines(InProcess.run("recover", "--json", dir.resolve("merged").toString()).exits(0));
        lines(InProcess.run("recover", "--json", dir.resolve("missing").toString()).exits(3));
        TestKeys keys = TestKeys.write(dir, "signing");
        Path signed = dir.resolve("merged");
        lines(InProcess.run("sign", "--json", signed.toString(), "--key", keys.privateKey().toString(),
                "--public-key", keys.publicKey().toString()).exits(0));
        String sig = signed.resolve("model.sig").toString();
        lines(InProcess.run("verify", "--json", signed.toString(), "--signature", sig, "--public-key",
                keys.publicKey().toString()).exits(0));
        Files.writeString(signed.resolve("extra.txt"), "not signed");
        lines(InProcess.run("verify", "--json", signed.toString(), "--signature", sig, "--public-key",
                keys.publicKey().toString()).exits(1));
        lines(InProcess.run("sign", "--json", dir.resolve("no-such-model").toString(), "--key",
                keys.privateKey().toString(), "--public-key", keys.publicKey().toString()).exits(3));

        assertEquals(Set.of("checkpoint", "download", "file", "output_index", "output_shard", "recover", "shard",
                "signature", "summary", "usage"), kinds, "every kind of line was seen");
        assertEquals(Set.of("download", "dump", "inspect", "recover", "reshard", "sign", "validate", "verify"),
                commands,
                "every command closed with a summary");
    }

    @Test
    void oneNameForOneThingAndTheLinesAddUpToTheReads() throws IOException {
        Path index = Fixtures.twoShards(dir.resolve("sharded"));
        List<JsonNode> validate = lines(InProcess.run("validate", "--json", index.toString()).exits(0));
        assertEquals(List.of("shard", "shard", "checkpoint", "summary"), validate.stream()
                .map(l -> l.get("kind").asString()).toList());
        JsonNode checkpoint = validate.get(2);
        long shardBytes = Files.size(index.resolveSibling("model-00001-of-00002.safetensors"))
                + Files.size(index.resolveSibling("model-00002-of-00002.safetensors"));
        assertEquals(shardBytes, checkpoint.get("size").asLong(), "the checkpoint's size: its shards' sum");
        assertEquals(72, checkpoint.get("index_total_size").asLong(), "what the index declares, as a number");
        assertEquals(1, checkpoint.get("requests").asLong(), "the index only: " + checkpoint);
        assertEquals(3, validate.stream().mapToLong(l -> l.get("requests").asLong()).sum(),
                "the index and one read per shard, each counted once");
        JsonNode summary = validate.get(3);
        assertEquals("validate", summary.get("command").asString());
        assertEquals("valid", summary.get("status").asString());
        assertEquals(0, summary.get("exit_code").asInt());
        assertEquals(2, summary.get("results").asLong(), "files and shards; a valid checkpoint repeats them");
        assertEquals(2, summary.get("counts").get("valid").asLong());

        List<JsonNode> download = lines(InProcess.run("download", "--json", index.toString(), "--out",
                dir.resolve("copy").toString()).exits(0));
        JsonNode file = download.get(0);
        assertEquals("valid", file.get("status").asString());
        assertEquals("downloaded", file.get("outcome").asString());
        assertEquals(index.toString(), file.get("source").asString());
        assertEquals(Files.size(index), file.get("size").asLong());
        assertTrue(file.get("output").asString().endsWith("model.safetensors.index.json"), file.toString());

        List<JsonNode> reshard = lines(InProcess.run("reshard", "--json", "--quiet", index.toString(), "--single",
                "--out", dir.resolve("merged").toString()).exits(0));
        JsonNode closing = reshard.get(reshard.size() - 1);
        assertEquals("reshard", closing.get("command").asString());
        assertEquals(index.toString(), closing.get("source").asString());
        assertEquals(72, closing.get("tensor_bytes").asLong(), "a number, never a string: " + closing);
        assertEquals("valid", reshard.get(0).get("status").asString());
        assertFalse(reshard.get(0).has("file") || reshard.get(0).has("path"), "a written file is output");
    }

    @Test
    void aHubCheckpointsLinesAddUpToWhatTheServersSaw() throws IOException {
        Path src = Fixtures.twoShards(dir.resolve("src"));
        Map<String, byte[]> files = new java.util.LinkedHashMap<>();
        for (String name : List.of("model.safetensors.index.json", "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors")) {
            files.put(name, Files.readAllBytes(src.resolveSibling(name)));
        }
        hub.repository("acme/sharded", files);
        hub.clearRequests();
        List<JsonNode> lines = lines(InProcess.run(env, "validate", "--json", "hf://acme/sharded").exits(0));
        int seen = hub.hubRequests().size() + hub.cdnRequests().size();
        assertEquals(seen, lines.stream().mapToLong(l -> l.has("exchanges") ? l.get("exchanges").asLong() : 0).sum(),
                "every HTTP request the servers saw is on exactly one line: " + lines);
        assertEquals(4, lines.stream().mapToLong(l -> l.get("requests").asLong()).sum(),
                "the listing, the index, one read per shard: " + lines);
    }

    @Test
    void theSchemaRefusesARenamedOrStringlyField() throws IOException {
        Path sample = Fixtures.write(dir, "sample.safetensors", Fixtures.small().build());
        JsonNode line = lines(InProcess.run("validate", "--json", sample.toString()).exits(0)).get(0);
        ObjectNode renamed = (ObjectNode) line.deepCopy();
        renamed.set("file_bytes", renamed.remove("size"));
        assertFalse(schema.validate(renamed).isEmpty(), "file_bytes is not the name: " + renamed);
        ObjectNode stringly = (ObjectNode) line.deepCopy();
        stringly.put("size", stringly.get("size").asString());
        assertFalse(schema.validate(stringly).isEmpty(), "a size is a number: " + stringly);
        ObjectNode status = (ObjectNode) line.deepCopy();
        status.put("status", "ok");
        assertFalse(schema.validate(status).isEmpty(), "ok is not a status: " + status);
        ObjectNode extra = (ObjectNode) line.deepCopy();
        extra.put("path", sample.toString());
        assertFalse(schema.validate(extra).isEmpty(), "a field the schema does not name: " + extra);
    }

    /** Validates every line of a run's stdout and notes its kind (and a summary's command). */
    private List<JsonNode> lines(Cli.Run run) {
        List<JsonNode> nodes = new ArrayList<>();
        List<String> text = run.outLines();
        assertFalse(text.isEmpty(), "--json prints something: " + run.describe());
        for (String line : text) {
            JsonNode n = JSON.readTree(line);
            valid(n, run.describe());
            kinds.add(n.get("kind").asString());
            if (n.get("kind").asString().equals("summary")) {
                commands.add(n.get("command").asString());
            }
            nodes.add(n);
        }
        String last = nodes.get(nodes.size() - 1).get("kind").asString();
        assertTrue(last.equals("summary") || last.equals("usage") || last.equals("recover"),
                "a run closes with its summary: " + run.describe());
        return nodes;
    }

    private void valid(JsonNode n, String context) {
        List<Error> errors = schema.validate(n);
        if (!errors.isEmpty()) {
            fail("not valid against docs/cli.schema.json: " + errors + "\n" + n + "\n" + context);
        }
    }
}
