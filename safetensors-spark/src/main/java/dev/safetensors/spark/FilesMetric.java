package dev.safetensors.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * The scan's {@value #NAME} metric, summed over tasks and shown in the Spark UI: safetensors files read. Spark creates it by class
 * name, so it is public with a no-argument constructor; nothing else needs it.
 */
public final class FilesMetric extends CustomSumMetric {
    static final String NAME = "files";

    /** Creates the metric, as Spark does from its class name. */
    public FilesMetric() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "safetensors files read";
    }
}
