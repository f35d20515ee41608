package dev.safetensors.s3;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.RequestMethod;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes WireMock answer like a well-behaved S3 bucket for the objects put into it: HEAD, ranged GET (206 with
 * {@code Content-Range}, 416 past the end), {@code If-Match} (412), {@code NoSuchKey} (404). Stubs for misbehaving
 * servers are registered at a higher priority and take precedence.
 */
final class S3ObjectsTransformer implements ResponseDefinitionTransformerV2 {
    static final String NAME = "s3-objects";
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    private final Map<String, StoredObject> objects = new ConcurrentHashMap<>();

    void put(String bucket, String key, StoredObject object) {
        objects.put("/" + bucket + "/" + key, object);
    }

    void clear() {
        objects.clear();
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
    public ResponseDefinition transform(ServeEvent serveEvent) {
        Request request = serveEvent.getRequest();
        String path = request.getUrl().split("\\?", 2)[0];
        StoredObject object = objects.get(path);
        boolean head = request.getMethod().equals(RequestMethod.HEAD);
        if (object == null) {
            return error(404, "NoSuchKey", head);
        }
        String ifMatch = request.getHeader("If-Match");
        if (ifMatch != null && !ifMatch.equals(object.etag())) {
            return error(412, "PreconditionFailed", head);
        }
        if (head) {
            return new ResponseDefinitionBuilder().withStatus(200).withHeader("ETag", object.etag())
                    .withHeader("Content-Length", Long.toString(object.size())).build();
        }
        String range = request.getHeader("Range");
        if (range == null) {
            return new ResponseDefinitionBuilder().withStatus(200).withHeader("ETag", object.etag())
                    .withBody(object.bytes(0, object.size() - 1)).build();
        }
        Matcher m = RANGE.matcher(range);
        if (!m.matches()) {
            return error(400, "InvalidArgument", false);
        }
        long first = Long.parseLong(m.group(1));
        long last = Math.min(Long.parseLong(m.group(2)), object.size() - 1);
        if (first >= object.size()) {
            return new ResponseDefinitionBuilder().withStatus(416).withHeader("Content-Range", "bytes */" + object.size())
                    .withHeader("Content-Type", "application/xml").withBody(errorXml("InvalidRange")).build();
        }
        return new ResponseDefinitionBuilder().withStatus(206).withHeader("ETag", object.etag())
                .withHeader("Content-Range", "bytes " + first + "-" + last + "/" + object.size())
                .withBody(object.bytes(first, last)).build();
    }

    private static ResponseDefinition error(int status, String code, boolean head) {
        ResponseDefinitionBuilder builder = new ResponseDefinitionBuilder().withStatus(status);
        return head ? builder.build()
                : builder.withHeader("Content-Type", "application/xml").withBody(errorXml(code)).build();
    }

    /** @return an S3 error document, as the SDK parses it */
    static String errorXml(String code) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + code
                + " from the test server</Message><RequestId>TESTREQUEST</RequestId></Error>";
    }
}
