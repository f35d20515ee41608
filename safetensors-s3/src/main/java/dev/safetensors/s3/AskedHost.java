package dev.safetensors.s3;

import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * The host one S3 call's last attempt was sent to, for its failure's message: without a configured endpoint the SDK
 * picks the host itself ({@code BUCKET.s3.REGION.amazonaws.com}, a FIPS or dual-stack one...) and names it in no
 * message of its own (an unknown host is "see cause for the exact endpoint"). Only the scheme, host and port are
 * kept: never a path, query, user information or header. One per call, attached as a per-request plugin so that a
 * client of the caller's own gets it too; the SDK calls it on the call's thread, attempt after attempt.
 */
final class AskedHost implements ExecutionInterceptor {
    private volatile URI endpoint;

    /** @return the plugin that attaches this to the one request it is given to */
    SdkPlugin plugin() {
        return config -> {
            S3ServiceClientConfiguration.Builder s3 = (S3ServiceClientConfiguration.Builder) config;
            s3.overrideConfiguration(s3.overrideConfiguration().toBuilder().addExecutionInterceptor(this).build());
        };
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        try {
            endpoint = new URI(request.protocol(), null, request.host(), request.port(), null, null, null);
        } catch (URISyntaxException e) {
            endpoint = null; // a host no URI can hold is not named rather than named wrongly
        }
    }

    /** @return {@code scheme://host:port} of the last attempt sent, or {@code null} if none was sent */
    URI endpoint() {
        return endpoint;
    }
}
