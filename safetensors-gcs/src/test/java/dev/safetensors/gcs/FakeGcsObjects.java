package dev.safetensors.gcs;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

import java.io.ByteArrayOutputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

import static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder.responseDefinition;

/**
 * Serves stored objects the way Cloud Storage's JSON API does, for stubs that name the transformer
 * {@value #NAME}:
 * <ul>
 *   <li>media GETs with {@code Range}, 206, {@code Content-Range}, {@code x-goog-generation} and
 *       {@code x-goog-stored-content-length}; 416 at or past the end; 412 on a failed {@code ifGenerationMatch};
 *       404 for unknown objects; object metadata as JSON, {@code crc32c} included;</li>
 *   <li>listings ({@code GET /storage/v1/b/B/o}, {@code prefix}, {@code maxResults}, {@code pageToken}, no
 *       delimiter) and deletes ({@code DELETE /storage/v1/b/B/o/O}, 204 or 404, 412 on a failed
 *       {@code ifGenerationMatch});</li>
 *   <li>uploads: {@code POST /upload/storage/v1/b/B/o?uploadType=media&name=O} stores the body;
 *       {@code uploadType=resumable} starts a session whose URI is in {@code Location}; {@code PUT}s to it append
 *       chunks (a chunk but the last a multiple of 256 KiB, starting at the byte the session holds) and answer 308
 *       with the {@code Range} held, {@code Content-Range: bytes *&#47;T} asks it, the chunk that reaches the
 *       total stores the object; {@code DELETE} cancels it with 499. {@code ifGenerationMatch=0} is honoured when
 *       the object is stored, with 412, and an {@code x-goog-hash: crc32c=} that is not the body's is a 400.</li>
 * </ul>
 * Objects and sessions are shared by every server of the JVM, so each test class writes to buckets of its own.
 * Public, in this module's test-jar, for other modules' tests against {@code gs://} (Spark's writes).
 */
public final class FakeGcsObjects implements ResponseDefinitionTransformerV2 {
    /** The transformer's name, for a stub's {@code withTransformers}. */
    public static final String NAME = "fake-gcs-objects";
    private static final Pattern OBJECT = Pattern.compile("(/download)?/storage/v1/b/([^/]+)/o/([^/?]+)");
    private static final Pattern BUCKET = Pattern.compile("(/upload)?/storage/v1/b/([^/]+)/o");
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");
    private static final Pattern CHUNK = Pattern.compile("bytes (?:\\*|(\\d+)-(\\d+))/(\\*|\\d+)");
    private static final int CHUNK_GRANULE = 256 << 10;
    private static final Map<String, StoredObject> OBJECTS = new ConcurrentHashMap<>();
    private static final Map<String, Session> SESSIONS = new ConcurrentHashMap<>();
    private static final Set<String> LOSING_ANSWERS = ConcurrentHashMap.newKeySet();
    private static final AtomicLong GENERATIONS = new AtomicLong(1_700_000_000_000_000L);

    /** @param generation the object's generation */
    record StoredObject(byte[] content, long generation) {
    }

    /** A resumable upload under way: where it stores and what it holds. */
    private static final class Session {
        final String key;
        final boolean createOnly;
        final ByteArrayOutputStream held = new ByteArrayOutputStream();

        Session(String key, boolean createOnly) {
            this.key = key;
            this.createOnly = createOnly;
        }
    }

    static void put(String bucket, String object, byte[] content, long generation) {
        OBJECTS.put(bucket + "/" + object, new StoredObject(content.clone(), generation));
    }

    /** @return the object stored under that name, or {@code null} */
    static StoredObject stored(String bucket, String object) {
        return OBJECTS.get(bucket + "/" + object);
    }

    /** @return how many resumable sessions to objects of the bucket are open: neither stored nor cancelled */
    static long openSessions(String bucket) {
        return SESSIONS.values().stream().filter(s -> s.key.startsWith(bucket + "/")).count();
    }

    /**
     * Makes the next one-request upload to the bucket, or chunk but the last sent to a session of it, be stored and
     * then answered 503, as when an answer is lost after the server took the bytes.
     */
    static void loseTheNextUploadAnswer(String bucket) {
        LOSING_ANSWERS.add(bucket);
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public boolean applyGlobally() {
        return false;
    }

    @Override
    public ResponseDefinition transform(ServeEvent event) {
        Request request = event.getRequest();
        String[] pathAndQuery = request.getUrl().split("\\?", 2);
        String query = pathAndQuery.length > 1 ? pathAndQuery[1] : "";
        String method = request.getMethod().getName();
        Matcher bucket = BUCKET.matcher(pathAndQuery[0]);
        if (bucket.matches()) {
            String name = decode(bucket.group(2));
            if (bucket.group(1) == null) {
                return "GET".equals(method) ? listing(name, query) : status(400, "unexpected listing request");
            }
            String session = parameter(query, "upload_id");
            if (session != null) {
                return session(request, method, session);
            }
            return "POST".equals(method) ? startUpload(request, name, query) : status(400, "unexpected upload");
        }
        Matcher m = OBJECT.matcher(pathAndQuery[0]);
        if (!m.matches()) {
            return status(400, "unexpected path");
        }
        String key = decode(m.group(2)) + "/" + decode(m.group(3));
        StoredObject object = OBJECTS.get(key);
        if (object == null) {
            return status(404, "No such object: " + key);
        }
        String match = parameter(query, "ifGenerationMatch");
        if (match != null && Long.parseLong(match) != object.generation()) {
            return status(412, "At least one of the pre-conditions you specified did not hold.");
        }
        if ("DELETE".equals(method)) {
            OBJECTS.remove(key, object);
            return responseDefinition().withStatus(204).build();
        }
        String generation = parameter(query, "generation");
        if (generation != null && Long.parseLong(generation) != object.generation()) {
            return status(404, "No such object: " + key + "#" + generation);
        }
        return m.group(1) != null ? media(object, request.getHeader("Range")) : json(200, resource(key, object));
    }

    private static ResponseDefinition startUpload(Request request, String bucket, String query) {
        String object = parameter(query, "name");
        if (object == null) {
            return status(400, "an upload needs a name");
        }
        String key = bucket + "/" + decode(object);
        boolean createOnly = "0".equals(parameter(query, "ifGenerationMatch"));
        String type = parameter(query, "uploadType");
        if ("media".equals(type)) {
            ResponseDefinition stored = store(key, createOnly, request.getBody(), request.getHeader("x-goog-hash"));
            return stored.getStatus() == 200 && LOSING_ANSWERS.remove(bucket) ? status(503, "Backend Error") : stored;
        }
        if (!"resumable".equals(type)) {
            return status(400, "unexpected uploadType " + type);
        }
        String id = "session-" + GENERATIONS.incrementAndGet();
        SESSIONS.put(id, new Session(key, createOnly));
        String uri = request.getAbsoluteUrl().split("\\?", 2)[0] + "?uploadType=resumable&name=" + object
                + "&upload_id=" + id;
        return responseDefinition().withStatus(200).withHeader("Location", uri).build();
    }

    private static ResponseDefinition session(Request request, String method, String id) {
        Session session = SESSIONS.get(id);
        if (session == null) {
            return status(404, "No such upload session");
        }
        if ("DELETE".equals(method)) {
            SESSIONS.remove(id);
            return responseDefinition().withStatus(499).build();
        }
        Matcher range = CHUNK.matcher(String.valueOf(request.getHeader("Content-Range")));
        if (!"PUT".equals(method) || !range.matches()) {
            return status(400, "a session takes PUTs with a Content-Range");
        }
        long total = range.group(3).equals("*") ? -1 : Long.parseLong(range.group(3));
        byte[] body = request.getBody();
        if (range.group(1) != null) {
            long first = Long.parseLong(range.group(1));
            long last = Long.parseLong(range.group(2));
            if (first != session.held.size() || last - first + 1 != body.length) {
                return status(400, "the chunk from " + first + " to " + last + " does not follow the "
                        + session.held.size() + " bytes held");
            }
            if (last + 1 != total && body.length % CHUNK_GRANULE != 0) {
                return status(400, "a chunk but the last must be a multiple of 256 KiB");
            }
            session.held.writeBytes(body);
        }
        if (total >= 0 && session.held.size() == total) {
            ResponseDefinition stored = store(session.key, session.createOnly, session.held.toByteArray(),
                    request.getHeader("x-goog-hash"));
            SESSIONS.remove(id);
            return stored;
        }
        String bucket = session.key.substring(0, session.key.indexOf('/'));
        if (body.length > 0 && LOSING_ANSWERS.remove(bucket)) {
            return status(503, "Backend Error");
        }
        ResponseDefinitionBuilder incomplete = responseDefinition().withStatus(308);
        return session.held.size() == 0 ? incomplete.build()
                : incomplete.withHeader("Range", "bytes=0-" + (session.held.size() - 1)).build();
    }

    private static synchronized ResponseDefinition store(String key, boolean createOnly, byte[] content,
                                                         String hash) {
        String crc32c = crc32c(content);
        if (hash != null && hash.startsWith("crc32c=") && !hash.substring(7).equals(crc32c)) {
            return status(400, "Provided CRC32C does not match calculated CRC32C " + crc32c);
        }
        if (createOnly && OBJECTS.containsKey(key)) {
            return status(412, "At least one of the pre-conditions you specified did not hold.");
        }
        StoredObject object = new StoredObject(content.clone(), GENERATIONS.incrementAndGet());
        OBJECTS.put(key, object);
        return json(200, resource(key, object));
    }

    private static ResponseDefinition listing(String bucket, String query) {
        String prefix = parameter(query, "prefix") == null ? "" : decode(parameter(query, "prefix"));
        TreeMap<String, StoredObject> files = new TreeMap<>();
        OBJECTS.forEach((key, object) -> {
            if (key.startsWith(bucket + "/" + prefix)) {
                files.put(key.substring(bucket.length() + 1), object);
            }
        });
        List<String> names = List.copyOf(files.keySet());
        int from = parameter(query, "pageToken") == null ? 0 : Integer.parseInt(parameter(query, "pageToken"));
        int size = parameter(query, "maxResults") == null ? 1000 : Integer.parseInt(parameter(query, "maxResults"));
        int to = Math.min(names.size(), from + size);
        StringBuilder json = new StringBuilder("{\"kind\":\"storage#objects\",\"items\":[");
        for (int i = from; i < to; i++) {
            json.append(i > from ? "," : "").append(resource(bucket + "/" + names.get(i), files.get(names.get(i))));
        }
        json.append(']');
        if (to < names.size()) {
            json.append(",\"nextPageToken\":\"").append(to).append('"');
        }
        return json(200, json.append('}').toString());
    }

    private static ResponseDefinition media(StoredObject object, String range) {
        byte[] c = object.content();
        Matcher r = range == null ? null : RANGE.matcher(range);
        if (r == null || !r.matches()) {
            return identity(object, 200).withBody(c).build();
        }
        long first = Long.parseLong(r.group(1));
        long last = Math.min(Long.parseLong(r.group(2)), c.length - 1L);
        if (first >= c.length) {
            return responseDefinition().withStatus(416).withHeader("Content-Range", "bytes */" + c.length).build();
        }
        return identity(object, 206)
                .withHeader("Content-Range", "bytes " + first + "-" + last + "/" + c.length)
                .withBody(Arrays.copyOfRange(c, (int) first, (int) last + 1))
                .build();
    }

    private static ResponseDefinitionBuilder identity(StoredObject o, int status) {
        return responseDefinition().withStatus(status)
                .withHeader("x-goog-generation", Long.toString(o.generation()))
                .withHeader("x-goog-stored-content-length", Integer.toString(o.content().length))
                .withHeader("x-goog-stored-content-encoding", "identity")
                .withHeader("ETag", "\"etag-" + o.generation() + "\"");
    }

    private static String resource(String key, StoredObject o) {
        int slash = key.indexOf('/');
        return "{\"kind\":\"storage#object\",\"bucket\":\"" + key.substring(0, slash) + "\",\"name\":\""
                + key.substring(slash + 1) + "\",\"size\":\"" + o.content().length + "\",\"generation\":\""
                + o.generation() + "\",\"etag\":\"etag-" + o.generation() + "\",\"crc32c\":\""
                + crc32c(o.content()) + "\"}";
    }

    /** @return the CRC32C of the bytes as Cloud Storage writes it: the big-endian value in base64 */
    static String crc32c(byte[] content) {
        CRC32C crc = new CRC32C();
        crc.update(content);
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }

    private static ResponseDefinition json(int status, String json) {
        return responseDefinition().withStatus(status).withHeader("Content-Type", "application/json")
                .withBody(json).build();
    }

    private static ResponseDefinition status(int status, String message) {
        return json(status, "{\"error\":{\"code\":" + status + ",\"message\":\"" + message + "\"}}");
    }

    private static String parameter(String query, String name) {
        for (String p : query.split("&")) {
            if (p.startsWith(name + "=")) {
                return p.substring(name.length() + 1);
            }
        }
        return null;
    }

    private static String decode(String segment) {
        return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
