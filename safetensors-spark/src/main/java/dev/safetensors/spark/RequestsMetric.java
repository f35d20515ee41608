package dev.safetensors.spark;

/**
 * The scan's {@value #NAME} metric, summed over tasks and shown in the Spark UI: storage requests (one per header that fits the prefix read). Spark creates it by class
 * name, so it is public with a no-argument constructor; nothing else needs it.
 */
public final class RequestsMetric extends SumMetric {
    static final String NAME = "requests";

    /** Creates the metric, as Spark does from its class name. */
    public RequestsMetric() {
        super(NAME, "storage requests (one per header that fits the prefix read)");
    }
}
