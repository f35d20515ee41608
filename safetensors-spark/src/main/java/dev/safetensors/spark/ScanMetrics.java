package dev.safetensors.spark;

import dev.safetensors.SourceStatistics;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** What one task's reads cost so far: files, and the requests, bytes and exchanges of their closed sources. */
final class ScanMetrics {
    private long files;
    private SourceStatistics closed = SourceStatistics.NONE;

    /** @return the scan's metrics: the tasks' four, and the driver's {@value UnreadableMetric#NAME} */
    static CustomMetric[] supported() {
        return new CustomMetric[]{new FilesMetric(), new RequestsMetric(), new BytesReadMetric(),
            new ExchangesMetric(), new UnreadableMetric()};
    }

    void file() {
        files++;
    }

    void add(SourceStatistics statistics) {
        closed = closed.plus(statistics);
    }

    CustomTaskMetric[] values() {
        return new CustomTaskMetric[]{new TaskMetric(FilesMetric.NAME, files),
            new TaskMetric(RequestsMetric.NAME, closed.requests()),
            new TaskMetric(BytesReadMetric.NAME, closed.bytesRead()),
            new TaskMetric(ExchangesMetric.NAME, closed.exchanges())};
    }
}
