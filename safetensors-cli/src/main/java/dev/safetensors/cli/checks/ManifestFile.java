package dev.safetensors.cli.checks;

import dev.safetensors.CheckpointLimits;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.Sha256;
import dev.safetensors.StorageException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import dev.safetensors.cli.output.CommandJson;
import dev.safetensors.cli.output.Sanitized;

/**
 * The manifest format that {@code manifest} writes and {@code verify --manifest} reads: one JSON object with
 * {@code manifest_version} 1 and a {@code files} array of {@link ManifestEntry} objects, one per line so that diffs
 * stay readable. Reading is strict about what it uses (duplicate names, types, 64-hex digests, at most
 * {@link CheckpointLimits#maxManifestBytes()} bytes) and ignores fields it does not know, so later versions can add
 * some.
 */
public final class ManifestFile {
    private static final int VERSION = 1;
    private static final JsonFactory JSON = CommandJson.FACTORY;

    private ManifestFile() {
    }

    /**
     * @param entries   the files
     * @param generator what wrote it, such as {@code safetensors 0.1.0}
     * @return the manifest document, ending with a newline
     */
    public static String write(List<ManifestEntry> entries, String generator) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"manifest_version\": ").append(VERSION).append(", \"generator\": ").append(quoted(generator))
                .append(", \"files\": [");
        for (int i = 0; i < entries.size(); i++) {
            sb.append(i == 0 ? "\n  " : ",\n  ").append(entry(entries.get(i)));
        }
        return sb.append(entries.isEmpty() ? "]}\n" : "\n]}\n").toString();
    }

    private static String entry(ManifestEntry e) {
        StringWriter w = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), w)) {
            g.writeStartObject();
            g.writeStringProperty("source", e.source());
            g.writeNumberProperty("size", e.size());
            optional(g, "sha256", e.sha256());
            optional(g, "repository", e.repository());
            optional(g, "revision", e.revision());
            optional(g, "etag", e.etag());
            optional(g, "version", e.version());
            if (e.reportedSha256() != null) {
                g.writeStringProperty("reported_sha256", e.reportedSha256());
                g.writeStringProperty("reported_by", ManifestEntry.REPORTED_BY);
            }
            g.writeEndObject();
        }
        return w.toString();
    }

    private static void optional(JsonGenerator g, String name, String value) {
        if (value != null) {
            g.writeStringProperty(name, value);
        }
    }

    private static String quoted(String s) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), w)) {
            g.writeString(s);
        }
        return w.toString();
    }

    /**
     * @param path   a manifest file
     * @param limits bounds its size ({@link CheckpointLimits#maxManifestBytes()})
     * @return its entries, in file order
     * @throws IOException           if it cannot be read
     * @throws IllegalArgumentException if it is not a valid manifest; the message says where and why
     */
    public static List<ManifestEntry> read(Path path, CheckpointLimits limits) throws IOException {
        int max = limits.maxManifestBytes();
        if (Files.isDirectory(path)) {
            throw new StorageException(ErrorCode.NOT_A_FILE, path.toString(), "is a directory, not a manifest");
        }
        // bounded by the bytes read, not by size(): a pipe (/dev/stdin, a process substitution) or a device reports 0
        byte[] bytes;
        try (InputStream in = Files.newInputStream(path)) {
            bytes = in.readNBytes(max + 1);
        }
        if (bytes.length > max) {
            throw new IllegalArgumentException("the manifest has more than " + max + " bytes");
        }
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), bytes)) {
            expect(p, p.nextToken(), JsonToken.START_OBJECT, "a JSON object");
            List<ManifestEntry> entries = null;
            boolean versioned = false;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("manifest_version")) {
                    if (value != JsonToken.VALUE_NUMBER_INT || p.getLongValue() != VERSION) {
                        throw invalid(p, "manifest_version is not " + VERSION);
                    }
                    versioned = true;
                } else if (name.equals("files")) {
                    entries = files(p, value);
                } else {
                    p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw invalid(p, "data after the manifest object");
            }
            if (!versioned || entries == null) {
                throw new IllegalArgumentException("not a safetensors manifest: manifest_version and files are"
                        + " required");
            }
            return entries;
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage() + " (line "
                    + e.getLocation().getLineNr() + ")", e);
        }
    }

    private static List<ManifestEntry> files(JsonParser p, JsonToken value) {
        expect(p, value, JsonToken.START_ARRAY, "files to be an array");
        List<ManifestEntry> entries = new ArrayList<>();
        Set<String> sources = new HashSet<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
            ManifestEntry e = file(p);
            if (!sources.add(e.source())) {
                throw invalid(p, "\"" + Sanitized.line(e.source(), 200) + "\" is listed twice");
            }
            entries.add(e);
        }
        expect(p, p.currentToken(), JsonToken.END_ARRAY, "only objects in files");
        return entries;
    }

    private static ManifestEntry file(JsonParser p) {
        String source = null;
        long size = -1;
        String sha256 = null;
        String reported = null;
        String repository = null;
        String revision = null;
        String etag = null;
        String version = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "source" -> source = string(p, value, name);
                case "size" -> {
                    if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT
                            && p.getNumberType() != JsonParser.NumberType.LONG || p.getLongValue() < 0) {
                        throw invalid(p, "size is not a non-negative integer");
                    }
                    size = p.getLongValue();
                }
                case "sha256" -> sha256 = digest(p, value, name);
                case "reported_sha256" -> reported = digest(p, value, name);
                case "repository" -> repository = string(p, value, name);
                case "revision" -> revision = string(p, value, name);
                case "etag" -> etag = string(p, value, name);
                case "version" -> version = string(p, value, name);
                default -> p.skipChildren();
            }
        }
        if (source == null || size < 0) {
            throw invalid(p, "every file needs a source and a size");
        }
        if (sha256 == null && reported == null) {
            throw invalid(p, "\"" + Sanitized.line(source, 200) + "\" has neither sha256 nor reported_sha256");
        }
        return new ManifestEntry(source, size, sha256, reported, repository, revision, etag, version);
    }

    private static String digest(JsonParser p, JsonToken value, String name) {
        String s = string(p, value, name);
        if (!Sha256.isHex(s)) {
            throw invalid(p, name + " is not 64 hex digits");
        }
        return s;
    }

    private static String string(JsonParser p, JsonToken value, String name) {
        expect(p, value, JsonToken.VALUE_STRING, name + " to be a string");
        return p.getString();
    }

    private static void expect(JsonParser p, JsonToken actual, JsonToken wanted, String what) {
        if (actual != wanted) {
            throw invalid(p, "expected " + what);
        }
    }

    private static IllegalArgumentException invalid(JsonParser p, String why) {
        return new IllegalArgumentException(why + " (line " + p.currentLocation().getLineNr() + ")");
    }
}
