package dev.safetensors.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.collection.Iterator;

/**
 * The test JVM's one local[2] session, each task tried twice as a cluster would (local[2,2]), so a failed
 * attempt is retried (it takes 3-4 s to start, far more on a loaded machine, so the test classes share it;
 * Spark's shutdown hook stops it when the JVM exits), and the scan metrics of a finished query.
 */
final class LocalSpark {
    private LocalSpark() {
    }

    static SparkSession start() {
        SparkSession spark = SparkSession.builder().master("local[2,2]").appName("safetensors-spark-test")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.warehouse.dir", "target/spark-warehouse")
                // no adaptive re-planning, so the executed plan is the one whose scan metrics are read
                .config("spark.sql.adaptive.enabled", "false")
                .getOrCreate();
        System.out.println("Spark " + spark.version() + " on JDK " + Runtime.version());
        return spark;
    }

    /** @return the value of one of the scan's custom metrics, after the query ran */
    static long scanMetric(Dataset<?> executed, String name) {
        SparkPlan plan = executed.queryExecution().executedPlan();
        Iterator<SparkPlan> leaves = plan.collectLeaves().iterator();
        while (leaves.hasNext()) {
            SparkPlan leaf = leaves.next();
            if (leaf.metrics().contains(name)) {
                SQLMetric metric = leaf.metrics().apply(name);
                return metric.value();
            }
        }
        throw new AssertionError("no scan with metric " + name + " in " + plan);
    }
}
