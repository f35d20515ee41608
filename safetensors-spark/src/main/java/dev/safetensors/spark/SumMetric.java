package dev.safetensors.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * A metric of the scan, summed and shown in the Spark UI under a fixed name and description. Spark creates each
 * metric from its class name, so every metric is a public class of its own with a no-argument constructor; what
 * they share is here, once.
 */
abstract class SumMetric extends CustomSumMetric {
    private final String name;
    private final String description;

    /**
     * @param name        the metric's name, as tasks and the driver report it
     * @param description what it counts, as the Spark UI shows it
     */
    SumMetric(String name, String description) {
        this.name = name;
        this.description = description;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String description() {
        return description;
    }
}
