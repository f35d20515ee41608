package dev.safetensors.http;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;

/**
 * Chooses how each response body is received. Bodies of 200 and 206 answers are streamed
 * ({@link BodySubscribers#ofInputStream()}), so that closing the stream early aborts the exchange instead of
 * draining it. A redirect or error answer that declares a small {@code Content-Length} is read whole, so the
 * connection stays reusable (each Hub read starts with a redirect); any other body is streamed, and the caller
 * either finishes a short one or aborts it by closing.
 */
final class StreamingBodyHandler implements BodyHandler<InputStream> {
    static final StreamingBodyHandler INSTANCE = new StreamingBodyHandler();
    private static final long SMALL_BODY = 16 * 1024;

    private StreamingBodyHandler() {
    }

    @Override
    public BodySubscriber<InputStream> apply(ResponseInfo info) {
        int status = info.statusCode();
        if (status != 200 && status != 206 && isSmall(info.headers().firstValue("Content-Length").orElse(""))) {
            return BodySubscribers.mapping(BodySubscribers.ofByteArray(), ByteArrayInputStream::new);
        }
        return HttpResponse.BodySubscribers.ofInputStream();
    }

    private static boolean isSmall(String contentLength) {
        return !contentLength.isEmpty() && contentLength.length() <= 5 && contentLength.chars().allMatch(Character::isDigit)
                && Long.parseLong(contentLength) <= SMALL_BODY;
    }
}
