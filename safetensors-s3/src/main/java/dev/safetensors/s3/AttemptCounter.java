package dev.safetensors.s3;

import dev.safetensors.spi.RequestCounter;
import software.amazon.awssdk.metrics.MetricCollection;
import software.amazon.awssdk.metrics.MetricPublisher;

/**
 * Counts the HTTP requests behind each S3 call: the SDK retries inside a call, out of sight, but reports every
 * attempt as an {@code ApiCallAttempt} child of the call's metrics, which it hands to the publishers the request
 * names once the call is over. Attached per request, so it works with any client, the caller's included.
 */
final class AttemptCounter implements MetricPublisher {
    private static final String ATTEMPT = "ApiCallAttempt";
    private final RequestCounter counter;

    AttemptCounter(RequestCounter counter) {
        this.counter = counter;
    }

    @Override
    public void publish(MetricCollection call) {
        for (MetricCollection child : call.children()) {
            if (ATTEMPT.equals(child.name())) {
                counter.exchange();
            }
        }
    }

    @Override
    public void close() {
        // nothing is held: each publish counts and returns
    }
}
