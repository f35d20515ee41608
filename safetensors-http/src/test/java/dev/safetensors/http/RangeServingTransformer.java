package dev.safetensors.http;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes a WireMock stub behave like a static file server with genuine range support: the stub's body is the
 * whole object; {@code Range: bytes=a-b} gets 206 with the slice and its {@code Content-Range}, a start at or past
 * the end gets 416 with {@code bytes *}{@code /N}, and an {@code If-Match} that differs from the stub's
 * {@code ETag} gets 412. Stubs opt in with {@code withTransformers(NAME)}.
 */
final class RangeServingTransformer implements ResponseDefinitionTransformerV2 {
    static final String NAME = "ranges";
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

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
        ResponseDefinition stub = event.getResponseDefinition();
        byte[] object = stub.getByteBody() == null ? new byte[0] : stub.getByteBody();
        HttpHeader etag = stub.getHeaders() == null ? HttpHeader.absent("ETag") : stub.getHeaders().getHeader("ETag");
        HttpHeader ifMatch = event.getRequest().header("If-Match");
        if (ifMatch.isPresent() && etag.isPresent() && !ifMatch.firstValue().equals(etag.firstValue())) {
            return ResponseDefinitionBuilder.like(stub).but().withStatus(412).withBody(new byte[0]).build();
        }
        HttpHeader range = event.getRequest().header("Range");
        if (!range.isPresent()) {
            return stub;
        }
        Matcher m = RANGE.matcher(range.firstValue());
        if (!m.matches()) {
            return ResponseDefinitionBuilder.like(stub).but().withStatus(400).withBody(new byte[0]).build();
        }
        long first = Long.parseLong(m.group(1));
        long last = Math.min(Long.parseLong(m.group(2)), object.length - 1L);
        if (first >= object.length) {
            return ResponseDefinitionBuilder.like(stub).but().withStatus(416)
                    .withHeader("Content-Range", "bytes */" + object.length).withBody(new byte[0]).build();
        }
        return ResponseDefinitionBuilder.like(stub).but().withStatus(206)
                .withHeader("Content-Range", "bytes " + first + "-" + last + "/" + object.length)
                .withBody(Arrays.copyOfRange(object, (int) first, (int) last + 1)).build();
    }
}
