package dev.safetensors.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * The scan's {@value #NAME} metric, summed over tasks and shown in the Spark UI: bytes fetched from storage. Spark creates it by class
 * name, so it is public with a no-argument constructor; nothing else needs it.
 */
public final class BytesReadMetric extends CustomSumMetric {
    static final String NAME = "bytes_read";

    /** Creates the metric, as Spark does from its class name. */
    public BytesReadMetric() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "bytes fetched from storage";
    }
}
