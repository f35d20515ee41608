package dev.safetensors.examples;

import dev.safetensors.fixtures.LoopbackS3;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The runs of the S3 examples with the right keys, {@link InspectS3Test}'s and {@link SliceFromS3Test}'s, in one child
 * JVM ({@link ExampleProcess#runAll}), so that the AWS SDK is loaded once for both classes: whichever class comes
 * first has both write their objects to the test JVM's shared {@link LoopbackS3} and runs the batch, the other finds
 * its results. A run with other keys has a JVM of its own.
 */
final class S3ExampleRuns {
    /** The keys s3proxy accepts and the region the examples sign for. */
    static final Map<String, String> ENVIRONMENT = Map.of("AWS_ACCESS_KEY_ID", LoopbackS3.ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY", LoopbackS3.SECRET_KEY, "AWS_REGION", "us-east-1");
    private static Map<ExampleProcess.Invocation, ExampleProcess.Result> results;

    private S3ExampleRuns() {
    }

    /**
     * Runs the batch unless it has run.
     *
     * @return the shared server's endpoint, the examples' last argument
     * @throws Exception if an object cannot be written or the batch's JVM fails (the next call tries again)
     */
    static synchronized String run() throws Exception {
        LoopbackS3 s3 = LoopbackS3.shared();
        String endpoint = s3.endpoint().toString();
        if (results == null) {
            InspectS3Test.putObjects(s3);
            SliceFromS3Test.putObjects(s3);
            List<ExampleProcess.Invocation> all = Stream.concat(InspectS3Test.invocations(endpoint).stream(),
                    SliceFromS3Test.invocations(endpoint).stream()).toList();
            List<ExampleProcess.Result> ran = ExampleProcess.runAll(ENVIRONMENT, all, i -> { });
            Map<ExampleProcess.Invocation, ExampleProcess.Result> byInvocation = new HashMap<>();
            for (int i = 0; i < all.size(); i++) {
                byInvocation.put(all.get(i), ran.get(i));
            }
            results = byInvocation;
        }
        return endpoint;
    }

    /**
     * @param invocation one of the batch's runs
     * @return what it printed and its exit code
     */
    static synchronized ExampleProcess.Result result(ExampleProcess.Invocation invocation) {
        ExampleProcess.Result result = results == null ? null : results.get(invocation);
        if (result == null) {
            throw new IllegalStateException(invocation + " is not in the batch that ran");
        }
        return result;
    }
}
