package dev.safetensors.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * The scan's {@value #NAME} metric, summed over tasks and shown in the Spark UI: storage requests (one per header that fits the prefix read). Spark creates it by class
 * name, so it is public with a no-argument constructor; nothing else needs it.
 */
public final class RequestsMetric extends CustomSumMetric {
    static final String NAME = "requests";

    /** Creates the metric, as Spark does from its class name. */
    public RequestsMetric() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "storage requests (one per header that fits the prefix read)";
    }
}
