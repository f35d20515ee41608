package dev.safetensors.gcs;

import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder.responseDefinition;

/**
 * Serves stored objects the way Cloud Storage's JSON API does, for stubs that name the transformer
 * {@value #NAME}: media GETs with {@code Range}, 206, {@code Content-Range}, {@code x-goog-generation} and
 * {@code x-goog-stored-content-length}; 416 at or past the end; 412 on a failed {@code ifGenerationMatch}; 404 for
 * unknown objects; and object metadata as JSON.
 */
final class FakeGcsObjects implements ResponseDefinitionTransformerV2 {
    static final String NAME = "fake-gcs-objects";
    private static final Pattern PATH = Pattern.compile("(/download)?/storage/v1/b/([^/]+)/o/([^/?]+)");
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");
    private static final Map<String, StoredObject> OBJECTS = new ConcurrentHashMap<>();

    /** @param generation the object's generation */
    record StoredObject(byte[] content, long generation) {
    }

    static void put(String bucket, String object, byte[] content, long generation) {
        OBJECTS.put(bucket + "/" + object, new StoredObject(content.clone(), generation));
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
        Matcher m = PATH.matcher(pathAndQuery[0]);
        if (!m.matches()) {
            return status(400, "unexpected path");
        }
        String key = decode(m.group(2)) + "/" + decode(m.group(3));
        StoredObject object = OBJECTS.get(key);
        if (object == null) {
            return status(404, "No such object: " + key);
        }
        String query = pathAndQuery.length > 1 ? pathAndQuery[1] : "";
        String match = parameter(query, "ifGenerationMatch");
        if (match != null && Long.parseLong(match) != object.generation()) {
            return status(412, "At least one of the pre-conditions you specified did not hold.");
        }
        String generation = parameter(query, "generation");
        if (generation != null && Long.parseLong(generation) != object.generation()) {
            return status(404, "No such object: " + key + "#" + generation);
        }
        return m.group(1) != null ? media(object, request.getHeader("Range")) : metadata(key, object);
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

    private static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder identity(StoredObject o,
                                                                                           int status) {
        return responseDefinition().withStatus(status)
                .withHeader("x-goog-generation", Long.toString(o.generation()))
                .withHeader("x-goog-stored-content-length", Integer.toString(o.content().length))
                .withHeader("x-goog-stored-content-encoding", "identity")
                .withHeader("ETag", "\"etag-" + o.generation() + "\"");
    }

    private static ResponseDefinition metadata(String key, StoredObject o) {
        int slash = key.indexOf('/');
        String json = "{\"kind\":\"storage#object\",\"bucket\":\"" + key.substring(0, slash) + "\",\"name\":\""
                + key.substring(slash + 1) + "\",\"size\":\"" + o.content().length + "\",\"generation\":\""
                + o.generation() + "\",\"etag\":\"etag-" + o.generation() + "\"}";
        return responseDefinition().withStatus(200).withHeader("Content-Type", "application/json")
                .withBody(json).build();
    }

    private static ResponseDefinition status(int status, String message) {
        return responseDefinition().withStatus(status).withHeader("Content-Type", "application/json")
                .withBody("{\"error\":{\"code\":" + status + ",\"message\":\"" + message + "\"}}").build();
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
