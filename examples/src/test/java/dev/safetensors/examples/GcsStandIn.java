package dev.safetensors.examples;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Answers Cloud Storage media downloads ({@code GET /download/storage/v1/b/BUCKET/o/OBJECT?alt=media}) the way
 * Cloud Storage does: 206 with {@code Content-Range} for {@code Range: bytes=a-b}, {@code x-goog-generation},
 * {@code x-goog-stored-content-length} and {@code x-goog-stored-content-encoding}; 416 at or past the end; 412 when
 * {@code ifGenerationMatch} fails; 404 for an unknown object. Only as much of the API as the backend uses.
 */
final class GcsStandIn extends Handler.Abstract {
    private static final Pattern MEDIA = Pattern.compile("/download/storage/v1/b/([^/]+)/o/([^/]+)");
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    private record StoredObject(byte[] content, long generation) {
    }

    private final Map<String, StoredObject> objects = new ConcurrentHashMap<>();

    void put(String bucket, String object, byte[] content, long generation) {
        objects.put(bucket + "/" + object, new StoredObject(content.clone(), generation));
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        Matcher path = MEDIA.matcher(request.getHttpURI().getPath());
        Fields query = Request.extractQueryParameters(request);
        if (!path.matches() || !"media".equals(query.getValue("alt"))) {
            return answer(response, callback, 400, "only media downloads are served here");
        }
        String key = decode(path.group(1)) + "/" + decode(path.group(2));
        StoredObject object = objects.get(key);
        if (object == null) {
            return answer(response, callback, 404, "No such object: " + key);
        }
        String match = query.getValue("ifGenerationMatch");
        if (match != null && Long.parseLong(match) != object.generation()) {
            return answer(response, callback, 412, "At least one of the pre-conditions you specified did not hold.");
        }
        byte[] c = object.content();
        Matcher range = RANGE.matcher(String.valueOf(request.getHeaders().get("Range")));
        if (!range.matches()) {
            return answer(response, callback, 400, "this stand-in serves ranges only");
        }
        long first = Long.parseLong(range.group(1));
        if (first >= c.length) {
            response.getHeaders().put("Content-Range", "bytes */" + c.length);
            return answer(response, callback, 416, "The requested range cannot be satisfied.");
        }
        int last = (int) Math.min(Long.parseLong(range.group(2)), c.length - 1L);
        response.setStatus(206);
        response.getHeaders().put("Content-Range", "bytes " + first + "-" + last + "/" + c.length);
        response.getHeaders().put("x-goog-generation", Long.toString(object.generation()));
        response.getHeaders().put("x-goog-stored-content-length", Integer.toString(c.length));
        response.getHeaders().put("x-goog-stored-content-encoding", "identity");
        response.getHeaders().put("Content-Type", "application/octet-stream");
        response.write(true, ByteBuffer.wrap(c, (int) first, last - (int) first + 1), callback);
        return true;
    }

    private static boolean answer(Response response, Callback callback, int status, String message) {
        response.setStatus(status);
        response.getHeaders().put("Content-Type", "application/json");
        String json = "{\"error\":{\"code\":" + status + ",\"message\":\"" + message + "\"}}";
        response.write(true, ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)), callback);
        return true;
    }

    private static String decode(String segment) {
        return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
