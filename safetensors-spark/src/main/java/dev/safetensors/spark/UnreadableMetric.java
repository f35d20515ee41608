package dev.safetensors.spark;

/**
 * The scan's {@value #NAME} metric, reported by the driver and shown in the Spark UI: the entries its listings could
 * not read or name (a folder whose listing was refused or failed, an object no request can name), skipped under
 * {@code allowUnreadable} (without it they fail the scan). Spark creates it by class name, so it is public with a
 * no-argument constructor; nothing else needs it.
 */
public final class UnreadableMetric extends SumMetric {
    static final String NAME = "unreadable";

    /** Creates the metric, as Spark does from its class name. */
    public UnreadableMetric() {
        super(NAME, "folders and names the listing could not read, skipped");
    }
}
