package dev.safetensors.spark;

/**
 * The scan's {@value #NAME} metric, summed over tasks and shown in the Spark UI: bytes fetched from storage. Spark creates it by class
 * name, so it is public with a no-argument constructor; nothing else needs it.
 */
public final class BytesReadMetric extends SumMetric {
    static final String NAME = "bytes_read";

    /** Creates the metric, as Spark does from its class name. */
    public BytesReadMetric() {
        super(NAME, "bytes fetched from storage");
    }
}
