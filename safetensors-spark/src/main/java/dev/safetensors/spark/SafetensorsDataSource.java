package dev.safetensors.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.sources.CreatableRelationProvider;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code safetensors} data source (Spark DSv2): {@code spark.read().format("safetensors").load(paths...)} or
 * {@code SELECT ... FROM safetensors.`path`}. Each file's header is read with one verified ranged request (when it
 * fits the library's prefix read) through the library's own sources, validated under the chosen policy, and turned
 * into rows of {@link SafetensorsSchemas#TENSOR} or {@link SafetensorsSchemas#FILE}.
 *
 * <p>Options (case-insensitive): {@code level} (tensor|file), {@code policy} (strict|official), {@code mode}
 * (PERMISSIVE|FAILFAST|DROPMALFORMED), {@code pathGlobFilter} (default {@code *.safetensors}),
 * {@code recursiveFileLookup}, {@code expandIndex} (default true: an index is read as its checkpoint),
 * {@code allowEmpty} (default false: a load that selects no file fails with {@code NOT_FOUND}),
 * {@code allowUnreadable} (default false: a folder the listing could not read fails the scan with its code),
 * {@code filesPerPartition} (default 1000), {@code ioThreads} (default 8), {@code checksum} (none|sha256),
 * {@code data} (none|binary|float32), {@code maxTensorBytes} (default 64 MiB). docs/spark.md describes each. A value
 * out of range is an {@link IllegalArgumentException}; a schema given by the user is refused, as the schema follows
 * from the options.
 *
 * <p>{@code df.write().format("safetensors").option("layout", ...).save(path)} writes a checkpoint, a samples
 * dataset or a keyed dataset (docs/spark.md, "Writing"). Spark lets a DSv2 table provider be written with append or
 * overwrite only, so the save mode is decided here, through Spark's {@link CreatableRelationProvider} entry, and the
 * rows are then written by the DSv2 {@link SafetensorsWriteProvider} with Spark's task and job commit protocol:
 * {@code errorifexists} (the default) refuses an output folder that holds anything, {@code ignore} leaves it as it
 * is, {@code overwrite} replaces its content at job commit, {@code append} is refused (a checkpoint's index and a
 * dataset's manifest describe one job's output; adding files would need rewriting them).
 */
public final class SafetensorsDataSource implements TableProvider, DataSourceRegister, CreatableRelationProvider {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Creates the source, as Spark does through {@code META-INF/services}. */
    public SafetensorsDataSource() {
    }

    /** @return {@code safetensors} */
    @Override
    public String shortName() {
        return "safetensors";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return SafetensorsSchemas.of(ScanOptions.parse(options));
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new SafetensorsTable(locations(properties), ScanOptions.parse(properties));
    }

    /**
     * Writes the rows into the folder of option {@code path} under the save mode (see the class comment).
     *
     * @param sqlContext the session's context
     * @param mode       the save mode
     * @param parameters the writer's options
     * @param data       the rows
     * @return a relation over the rows written
     * @throws IllegalArgumentException for an option out of range, or {@code append}
     * @throws UncheckedIOException     wrapping the coded failure of the write ({@code ALREADY_EXISTS} for an output
     *                                  that exists under {@code errorifexists})
     */
    @Override
    public BaseRelation createRelation(SQLContext sqlContext, SaveMode mode,
                                       scala.collection.immutable.Map<String, String> parameters, Dataset<Row> data) {
        Map<String, String> options = new java.util.HashMap<>();
        scala.collection.Iterator<scala.Tuple2<String, String>> it = parameters.iterator();
        while (it.hasNext()) {
            scala.Tuple2<String, String> e = it.next();
            options.put(e._1(), e._2());
        }
        try {
            WriteLayouts.save(data, mode, options);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StructType schema = data.schema();
        return new BaseRelation() {
            @Override
            public SQLContext sqlContext() {
                return sqlContext;
            }

            @Override
            public StructType schema() {
                return schema;
            }
        };
    }

    /** The locations Spark passes: {@code path} for one, {@code paths} (a JSON array) for several. */
    private static List<String> locations(Map<String, String> properties) {
        List<String> out = new ArrayList<>();
        CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
        String path = options.get("path");
        if (path != null) {
            out.add(path);
        }
        String paths = options.get("paths");
        if (paths != null) {
            try {
                out.addAll(List.of(JSON.readValue(paths, String[].class)));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("option paths is not a JSON array of strings: " + paths, e);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no location given: load(path...) or option(\"path\", ...)");
        }
        return out;
    }
}
