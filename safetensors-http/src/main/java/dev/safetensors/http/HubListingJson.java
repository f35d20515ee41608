package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.json.JsonFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the Hub's repository answer ({@code /api/{models|datasets|spaces}/NS/REPO/revision/REV}) with jackson-core's
 * streaming parser, keeping only what a listing needs: the commit ({@code sha}) and each sibling's
 * {@code rfilename}. Strict: RFC 8259 only (jackson's defaults refuse comments, trailing commas, single quotes,
 * leading zeros), a name twice in any object is refused ({@link StreamReadFeature#STRICT_DUPLICATE_DETECTION}),
 * nesting, names, strings and the document are bounded by {@link StreamReadConstraints}, and lone surrogates in the
 * values kept are refused.
 *
 * <p>The bytes are decoded as UTF-8 only, with malformed input an error: the parser is given a {@link Reader}, so
 * jackson's encoding detection never runs (it would read a few zero bytes as UTF-32). Every failure is a
 * {@link StorageException} with {@link ErrorCode#SERVER_ERROR}: a malformed answer is the server's fault.
 */
final class HubListingJson {
    /** The deepest nesting accepted: the answer's own shape needs 3. */
    static final int MAX_DEPTH = 64;
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH)
                    .maxDocumentLength(HubRepository.MAX_LISTING_BYTES)
                    .maxStringLength(HubRepository.MAX_LISTING_BYTES)
                    .maxNameLength(HubRepository.MAX_LISTING_BYTES).build())
            .build();

    /**
     * What a listing keeps of the answer.
     *
     * @param sha   the commit the revision resolved to, or {@code null} when the answer names none
     * @param files every sibling's path, in the answer's order
     */
    record Answer(String sha, List<String> files) {
    }

    private HubListingJson() {
    }

    /**
     * @param name  the source name, for messages
     * @param bytes the whole answer, at most {@link HubRepository#MAX_LISTING_BYTES}
     * @return the commit and files it lists
     * @throws StorageException with {@link ErrorCode#SERVER_ERROR} if the bytes are not strict UTF-8 JSON or not a
     *                          listing
     */
    static Answer parse(String name, byte[] bytes) throws StorageException {
        return parse(name, bytes, p -> read(name, p));
    }

    /**
     * One entry of a tree page ({@code /api/models/NS/REPO/tree/REV/PATH}).
     *
     * @param path    the path in the repository
     * @param type    {@code file} or {@code directory}
     * @param size    the size of a file, or -1 when the page gives none
     * @param version the LFS SHA-256 of an LFS file, else the git object id, or {@code null}
     */
    record TreeItem(String path, String type, long size, String version) {
    }

    /**
     * @param name  the source name, for messages
     * @param bytes one page of a tree listing: a JSON array of entries
     * @return the entries, in the page's order
     * @throws StorageException with {@link ErrorCode#SERVER_ERROR} if the bytes are not strict UTF-8 JSON, not an
     *                          array, or an entry lacks its path or type
     */
    static List<TreeItem> parseTree(String name, byte[] bytes) throws StorageException {
        return parse(name, bytes, p -> tree(name, p));
    }

    /** Reads one value from a parser. */
    private interface Reading<T> {
        T read(JsonParser p) throws StorageException;
    }

    private static <T> T parse(String name, byte[] bytes, Reading<T> reading) throws StorageException {
        Reader utf8 = new InputStreamReader(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT));
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), utf8)) {
            T answer = reading.read(p);
            if (p.nextToken() != null) {
                throw bad(name, "data after the answer");
            }
            return answer;
        } catch (JacksonIOException e) {
            // only decoding can fail here: the bytes are in memory
            throw bad(name, "not UTF-8 (" + SourceNames.clip(String.valueOf(e.getCause())) + ")");
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            throw bad(name, "not valid JSON: " + SourceNames.clip(e.getOriginalMessage())
                    + (at == null ? "" : " at character " + at.getCharOffset()));
        }
    }

    private static List<TreeItem> tree(String name, JsonParser p) throws StorageException {
        if (p.nextToken() != JsonToken.START_ARRAY) {
            throw bad(name, "not a JSON array");
        }
        List<TreeItem> items = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t != JsonToken.START_OBJECT) {
                throw bad(name, "an entry of the tree is not an object");
            }
            String path = null;
            String type = null;
            long size = -1;
            String oid = null;
            String lfs = null;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String key = p.currentName();
                JsonToken value = p.nextToken();
                if (key.equals("path") && value == JsonToken.VALUE_STRING) {
                    path = checked(name, p.getString());
                } else if (key.equals("type") && value == JsonToken.VALUE_STRING) {
                    type = checked(name, p.getString());
                } else if (key.equals("size") && value == JsonToken.VALUE_NUMBER_INT) {
                    size = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? -1 : Math.max(-1, p.getLongValue());
                } else if (key.equals("oid") && value == JsonToken.VALUE_STRING) {
                    oid = checked(name, p.getString());
                } else if (key.equals("lfs") && value == JsonToken.START_OBJECT) {
                    lfs = lfsOid(name, p);
                } else {
                    skip(name, p);
                }
            }
            if (path == null || type == null) {
                throw bad(name, "an entry of the tree has no path or type");
            }
            items.add(new TreeItem(path, type, size, lfs != null ? lfs : oid));
        }
        return items;
    }

    /** @return the {@code oid} of an {@code lfs} object (its SHA-256), the parser left at the object's end */
    private static String lfsOid(String name, JsonParser p) throws StorageException {
        String oid = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String key = p.currentName();
            JsonToken value = p.nextToken();
            if (key.equals("oid") && value == JsonToken.VALUE_STRING) {
                oid = checked(name, p.getString());
            } else {
                skip(name, p);
            }
        }
        return oid;
    }

    private static Answer read(String name, JsonParser p) throws StorageException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw bad(name, "not a JSON object");
        }
        String sha = null;
        List<String> files = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String key = p.currentName();
            JsonToken value = p.nextToken();
            if (key.equals("sha") && value == JsonToken.VALUE_STRING) {
                sha = checked(name, p.getString());
            } else if (key.equals("siblings")) {
                files = siblings(name, p, value);
            } else {
                skip(name, p);
            }
        }
        if (files == null) {
            throw bad(name, "the listing has no siblings array");
        }
        return new Answer(sha, files);
    }

    private static List<String> siblings(String name, JsonParser p, JsonToken start) throws StorageException {
        if (start != JsonToken.START_ARRAY) {
            throw bad(name, "the listing has no siblings array");
        }
        List<String> files = new ArrayList<>();
        for (JsonToken t; (t = p.nextToken()) != JsonToken.END_ARRAY; ) {
            if (t != JsonToken.START_OBJECT) {
                throw bad(name, "a sibling is not an object");
            }
            String file = null;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String key = p.currentName();
                JsonToken value = p.nextToken();
                if (key.equals("rfilename") && value == JsonToken.VALUE_STRING) {
                    file = checked(name, p.getString());
                } else {
                    skip(name, p);
                }
            }
            if (file == null) {
                throw bad(name, "a sibling has no rfilename");
            }
            files.add(file);
        }
        return files;
    }

    /** Skips the value at the current token, checking its strings and names as the values kept are checked. */
    private static void skip(String name, JsonParser p) throws StorageException {
        int depth = 0;
        for (JsonToken t = p.currentToken(); ; t = p.nextToken()) {
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            } else if (t == JsonToken.VALUE_STRING || t == JsonToken.PROPERTY_NAME) {
                checked(name, p.getString());
            }
            if (depth == 0) {
                return;
            }
        }
    }

    /** Jackson decodes {@code \}u escapes without pairing surrogates; a lone one names no file. */
    private static String checked(String name, String s) throws StorageException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw bad(name, "lone surrogate in a string");
            }
        }
        return s;
    }

    private static StorageException bad(String name, String why) {
        return new StorageException(ErrorCode.SERVER_ERROR, name, "the Hub's answer is " + (why.startsWith("not")
                ? "" : "not a listing: ") + why);
    }
}
