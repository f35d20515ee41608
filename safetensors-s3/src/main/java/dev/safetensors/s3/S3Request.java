package dev.safetensors.s3;

import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.RetriedRequest;
import dev.safetensors.spi.StatusMapping;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * One S3 call that is neither a ranged read nor a listing page (the writer's HEAD, PUT, multipart and delete calls)
 * made under a {@link RemotePolicy} through {@link RetriedRequest}: a retryable status or a failure before any
 * answer is asked again within the policy's budget, and every other error answer means what {@link StatusMapping}
 * says, naming the object, the S3 error code and the host that answered ({@link SdkFailureTranslator}), never a
 * credential. The client is expected not to retry by itself, as one built by {@link S3ClientOptions} does not.
 */
final class S3Request {
    private S3Request() {
    }

    /**
     * One attempt of the call.
     *
     * @param <T> what the call answers
     */
    @FunctionalInterface
    interface Call<T> {
        /**
         * Sends the call once. An error answer the caller gives a meaning of its own (a 404 that means "absent", a
         * 412 that means "already there") is caught here and turned into a value or a coded failure; every other
         * SDK exception is left to propagate.
         *
         * @param config to pass to the request's {@code overrideConfiguration}: the plugins every call carries
         * @return the answer
         * @throws IOException a coded failure of the caller's own
         */
        T send(Consumer<AwsRequestOverrideConfiguration.Builder> config) throws IOException;
    }

    /**
     * @param policy retries and backoff
     * @param name   the object or prefix, as displayed
     * @param what   the call, for messages ({@code "PutObject"})
     * @param call   sends it once
     * @param <T>    what the call answers
     * @return the first answer
     * @throws IOException the last attempt's failure, coded
     */
    static <T> T call(RemotePolicy policy, String name, String what, Call<T> call) throws IOException {
        return RetriedRequest.call(policy, name, what, attempt -> {
            AskedHost asked = new AskedHost();
            try {
                return RetriedRequest.Outcome.answer(call.send(c -> c.addPlugin(DotSegments.PLUGIN)
                        .addPlugin(asked.plugin())));
            } catch (SdkServiceException e) {
                int status = e.statusCode();
                IOException failure = StatusMapping.failure(status, name, what + " was answered " + status
                        + SdkFailureTranslator.told(e, asked.endpoint()) + " at attempt " + attempt, e);
                if (RemotePolicy.isRetryable(status)) {
                    return RetriedRequest.Outcome.retryable(status, SdkFailureTranslator.retryAfter(e), failure);
                }
                throw failure;
            } catch (SdkClientException e) {
                throw SdkFailureTranslator.noAnswer(name, what, e, asked.endpoint());
            }
        });
    }
}
