package dev.safetensors.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.collection.Iterator;

/**
 * The test JVM's one local[2] session, each task tried twice as a cluster would (local[2,2]), so a failed
 * attempt is retried (starting takes 3-4 s to start, far more on a loaded machine, so the test classes
 * share it; Spark's shutdown hook stops it when the JVM exits), and the scan metrics of a finished query.
 *
 * <p>In the fast tier the session runs without code generation ({@code safetensors.spark.test.codegen=false},
 * given by the module's pom): whole-stage code generation off and every expression interpreted. On inputs of a
 * few rows, compiling the generated Java with Janino, loading it and compiling it again to machine code costs far
 * more than it saves, and the fast tier's queries are a hundred such inputs. Users get code generation, so
 * {@link #withCodegen()} gives the classes that need it (the SQL functions' class, whose Java UDFs and the reader's
 * rows meet in generated code there) a session of their own with Spark's defaults; the slow tier (the {@code slow}
 * profile) and a run without the property use Spark's defaults everywhere.
 */
final class LocalSpark {
    /** Whether the shared session generates code, as Spark does by default; the fast tier turns it off. */
    private static final boolean CODEGEN =
            Boolean.parseBoolean(System.getProperty("safetensors.spark.test.codegen", "true"));

    private LocalSpark() {
    }

    static SparkSession start() {
        SparkSession.Builder builder = SparkSession.builder().master("local[2,2]").appName("safetensors-spark-test")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.warehouse.dir", "target/spark-warehouse")
                // no adaptive re-planning, so the executed plan is the one whose scan metrics are read
                .config("spark.sql.adaptive.enabled", "false");
        if (!CODEGEN) {
            builder.config("spark.sql.codegen.wholeStage", "false")
                    .config("spark.sql.codegen.factoryMode", "NO_CODEGEN");
        }
        SparkSession spark = builder.getOrCreate();
        System.out.println("Spark " + spark.version() + " on JDK " + Runtime.version()
                + (CODEGEN ? "" : ", code generation off"));
        return spark;
    }

    /**
     * A session of its own over the shared one's context, with Spark's code generation as users get it (whole-stage
     * code generation on, expressions compiled, interpreted only where compiling fails), whatever the shared
     * session's settings. Its SQL settings, temporary views and functions are its own.
     *
     * @return the session
     */
    static SparkSession withCodegen() {
        SparkSession spark = start().newSession();
        spark.conf().set("spark.sql.codegen.wholeStage", "true");
        spark.conf().set("spark.sql.codegen.factoryMode", "FALLBACK");
        return spark;
    }

    /** @return whether the query's executed plan runs a stage of generated code */
    static boolean generatesCode(Dataset<?> query) {
        return query.queryExecution().executedPlan().find(p -> p instanceof WholeStageCodegenExec).isDefined();
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
