package dev.safetensors.spark;

import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.Map;

/**
 * The DSv2 write side of the {@code safetensors} source, which {@link SafetensorsDataSource} runs for
 * {@code df.write().format("safetensors")} once it has applied the save mode (Spark lets a DSv2 table provider be
 * written with append or overwrite only, so the default {@code errorifexists} and {@code ignore} are decided there).
 * Not meant to be named by users; public because Spark instantiates it by class name.
 */
public final class SafetensorsWriteProvider implements TableProvider {
    /** Creates the provider, as Spark does by class name. */
    public SafetensorsWriteProvider() {
    }

    /** @return the rows' own schema is used: this provider never infers one */
    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        throw new IllegalArgumentException("the safetensors writer takes the schema of the rows written");
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        if (partitioning.length > 0) {
            throw new IllegalArgumentException("the safetensors writer does not partition its output (partitionBy)");
        }
        return new SafetensorsOutputTable(schema, properties);
    }
}
