package dev.safetensors.s3;

import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

/**
 * Sends a key's {@code .} and {@code ..} segments percent-encoded ({@code %2E}, {@code %2E%2E}), so that the request
 * names the exact key: the SDK leaves them raw in the path, where an HTTP stack, a proxy or a store resolves
 * {@code models/../secret} to the other object {@code secret}. S3 decodes the escapes back into the key's dots, and
 * the request is signed after this rewrite, so the signature covers the path as sent. A per-request plugin, so that
 * a client of the caller's own gets it too.
 */
final class DotSegments implements ExecutionInterceptor {
    /** The plugin every request that puts a key in the path is sent with. */
    static final SdkPlugin PLUGIN = config -> {
        S3ServiceClientConfiguration.Builder s3 = (S3ServiceClientConfiguration.Builder) config;
        s3.overrideConfiguration(s3.overrideConfiguration().toBuilder()
                .addExecutionInterceptor(new DotSegments()).build());
    };

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        String path = request.encodedPath();
        String encoded = encode(path);
        return encoded.equals(path) ? request : request.toBuilder().encodedPath(encoded).build();
    }

    /**
     * @param path an encoded URL path
     * @return it with every segment that is exactly {@code .} or {@code ..} percent-encoded
     */
    static String encode(String path) {
        if (!path.contains(".")) {
            return path;
        }
        String[] segments = path.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            if (segments[i].equals(".")) {
                segments[i] = "%2E";
            } else if (segments[i].equals("..")) {
                segments[i] = "%2E%2E";
            }
        }
        return String.join("/", segments);
    }
}
