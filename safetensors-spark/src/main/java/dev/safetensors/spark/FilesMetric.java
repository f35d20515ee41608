package dev.safetensors.spark;

/**
 * The scan's {@value #NAME} metric, summed over tasks and shown in the Spark UI: safetensors files read. Spark creates it by class
 * name, so it is public with a no-argument constructor; nothing else needs it.
 */
public final class FilesMetric extends SumMetric {
    static final String NAME = "files";

    /** Creates the metric, as Spark does from its class name. */
    public FilesMetric() {
        super(NAME, "safetensors files read");
    }
}
