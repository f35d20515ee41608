package dev.safetensors.spark;

/**
 * The scan's {@value #NAME} metric, summed over tasks and shown in the Spark UI: storage exchanges, retries included. Spark creates it by class
 * name, so it is public with a no-argument constructor; nothing else needs it.
 */
public final class ExchangesMetric extends SumMetric {
    static final String NAME = "exchanges";

    /** Creates the metric, as Spark does from its class name. */
    public ExchangesMetric() {
        super(NAME, "storage exchanges, retries included");
    }
}
