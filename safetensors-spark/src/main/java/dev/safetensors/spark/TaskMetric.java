package dev.safetensors.spark;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** One task's value of one of the scan's metrics, at the moment Spark asked. */
record TaskMetric(String name, long value) implements CustomTaskMetric {
}
