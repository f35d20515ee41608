package dev.safetensors.gcs.testing;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A loopback stand-in for the Cloud Storage JSON API, only as much of it as the GCS backend uses, for
 * {@code STORAGE_EMULATOR_HOST}. Media downloads, {@code GET /download/storage/v1/b/BUCKET/o/OBJECT?alt=media} with
 * {@code Range: bytes=a-b}, answer as Cloud Storage does: 206 with {@code Content-Range}, {@code Content-Length},
 * {@code x-goog-generation}, {@code x-goog-stored-content-length} and {@code x-goog-stored-content-encoding:
 * identity}; 416 with <code>Content-Range: bytes *&#47;SIZE</code> at or past the end; 412 when
 * {@code ifGenerationMatch} is not the object's generation; 404 with a JSON error for an unknown object (or an
 * unknown {@code generation}). Object metadata, {@code GET /storage/v1/b/BUCKET/o/OBJECT}, answers the object
 * resource as JSON. Jetty runs with {@link UriCompliance#UNSAFE} so that an object name's {@code /}, sent as
 * {@code %2F}, reaches the handler as it reaches Cloud Storage. Every request is recorded as it arrived.
 *
 * <p>Published in this module's test-jar for the command's and the examples' end-to-end tests. Thread-safe.
 */
public final class GcsStandIn implements AutoCloseable {
    private static final Pattern PATH = Pattern.compile("(/download)?/storage/v1/b/([^/]+)/o/([^/]+)");
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    private record StoredObject(byte[] content, long generation) {
    }

    private final Server server = new Server();
    private final Map<String, StoredObject> objects = new ConcurrentHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();

    /** @throws Exception if the server does not start */
    public GcsStandIn() throws Exception {
        HttpConfiguration http = new HttpConfiguration();
        http.setUriCompliance(UriCompliance.UNSAFE);
        http.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String query = request.getHttpURI().getQuery();
                String range = request.getHeaders().get(HttpHeader.RANGE);
                requests.add(request.getMethod() + " " + request.getHttpURI().getPath()
                        + (query == null ? "" : "?" + query) + (range == null ? "" : " Range: " + range));
                return answer(request, response, callback);
            }
        });
        server.start();
    }

    /**
     * Stores an object, replacing any of the same name.
     *
     * @param bucket     the bucket
     * @param object     the object name, {@code /} included
     * @param content    its bytes
     * @param generation its generation
     */
    public void put(String bucket, String object, byte[] content, long generation) {
        objects.put(bucket + "/" + object, new StoredObject(content.clone(), generation));
    }

    /** @return the value for {@code STORAGE_EMULATOR_HOST}: {@code 127.0.0.1:PORT} */
    public String hostAndPort() {
        return "127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    /**
     * @return every request so far, in arrival order, as {@code METHOD PATH[?QUERY][ Range: RANGE]} with path and
     *         query as sent, still percent-encoded
     */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    /** Forgets the requests recorded so far. */
    public void forgetRequests() {
        requests.clear();
    }

    /**
     * Stops the server.
     *
     * @throws Exception if it does not stop
     */
    @Override
    public void close() throws Exception {
        server.stop();
    }

    private boolean answer(Request request, Response response, Callback callback) {
        Matcher path = PATH.matcher(request.getHttpURI().getPath());
        if (!"GET".equals(request.getMethod()) || !path.matches()) {
            return error(response, callback, 400, "invalid", "this stand-in serves object GETs only");
        }
        boolean media = path.group(1) != null;
        Fields query = Request.extractQueryParameters(request);
        if (media && !"media".equals(query.getValue("alt"))) {
            return error(response, callback, 400, "invalid", "a download needs alt=media");
        }
        String key = decode(path.group(2)) + "/" + decode(path.group(3));
        StoredObject object = objects.get(key);
        if (object == null) {
            return error(response, callback, 404, "notFound", "No such object: " + key);
        }
        String match = query.getValue("ifGenerationMatch");
        if (match != null && !match.equals(Long.toString(object.generation()))) {
            return error(response, callback, 412, "conditionNotMet",
                    "At least one of the pre-conditions you specified did not hold.");
        }
        String generation = query.getValue("generation");
        if (generation != null && !generation.equals(Long.toString(object.generation()))) {
            return error(response, callback, 404, "notFound", "No such object: " + key + "#" + generation);
        }
        return media ? media(request, response, callback, object) : metadata(response, callback, key, object);
    }

    private static boolean media(Request request, Response response, Callback callback, StoredObject object) {
        byte[] c = object.content();
        String range = request.getHeaders().get(HttpHeader.RANGE);
        int first = 0;
        int last = c.length - 1;
        if (range != null) {
            Matcher r = RANGE.matcher(range);
            if (!r.matches()) {
                return error(response, callback, 400, "invalid", "this stand-in serves Range: bytes=a-b only");
            }
            long from = Long.parseLong(r.group(1));
            if (from >= c.length) {
                response.getHeaders().put(HttpHeader.CONTENT_RANGE, "bytes */" + c.length);
                return error(response, callback, 416, "requestedRangeNotSatisfiable",
                        "The requested range cannot be satisfied.");
            }
            first = (int) from;
            last = (int) Math.min(Long.parseLong(r.group(2)), c.length - 1L);
            response.getHeaders().put(HttpHeader.CONTENT_RANGE, "bytes " + first + "-" + last + "/" + c.length);
        }
        response.setStatus(range == null ? 200 : 206);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, last - first + 1);
        response.getHeaders().put("x-goog-generation", Long.toString(object.generation()));
        response.getHeaders().put("x-goog-stored-content-length", Integer.toString(c.length));
        response.getHeaders().put("x-goog-stored-content-encoding", "identity");
        response.getHeaders().put(HttpHeader.ETAG, "\"" + etag(object) + "\"");
        response.write(true, ByteBuffer.wrap(c, first, last - first + 1), callback);
        return true;
    }

    private static boolean metadata(Response response, Callback callback, String key, StoredObject object) {
        int slash = key.indexOf('/');
        String json = "{\"kind\":\"storage#object\",\"bucket\":\"" + key.substring(0, slash) + "\",\"name\":\""
                + key.substring(slash + 1) + "\",\"size\":\"" + object.content().length + "\",\"generation\":\""
                + object.generation() + "\",\"etag\":\"" + etag(object) + "\"}";
        return json(response, callback, 200, json);
    }

    private static boolean error(Response response, Callback callback, int status, String reason, String message) {
        return json(response, callback, status, "{\"error\":{\"code\":" + status + ",\"message\":\"" + message
                + "\",\"errors\":[{\"message\":\"" + message + "\",\"domain\":\"global\",\"reason\":\"" + reason
                + "\"}]}}");
    }

    private static boolean json(Response response, Callback callback, int status, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json; charset=UTF-8");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }

    private static String etag(StoredObject object) {
        return "CL" + Long.toHexString(object.generation());
    }

    private static String decode(String segment) {
        return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
