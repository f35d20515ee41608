package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.functions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Applies a save mode, then writes the rows with the DSv2 writer: {@code layout=checkpoint} (tensor rows to a
 * sharded checkpoint), {@code layout=samples} (rows stacked into batches) or {@code layout=keyed} (one set of tensors
 * per key), into a local folder or a store prefix. docs/spark.md describes the options.
 */
final class WriteLayouts {
    private static final String POSITION = "__safetensors_position";
    private static final String RANK = "__safetensors_rank";

    private WriteLayouts() {
    }

    static void save(Dataset<Row> data, SaveMode mode, Map<String, String> options) throws IOException {
        WriteOptions parsed = WriteOptions.parse(options);
        // the filesystems and fs.s3a.* settings the output is checked with, as the job will write with them
        HadoopFiles.use(data.sparkSession().sparkContext().hadoopConfiguration());
        Optional<Location> store = Locations.output(Locations.normalize(parsed.path()));
        Path output = store.isPresent() ? null : Staging.output(parsed.path());
        boolean holdsFiles = store.isPresent() ? StoreOutput.holdsObjects(store.get())
                : Files.isDirectory(output) && !isEmpty(output);
        boolean notAFolder = output != null && Files.exists(output) && !Files.isDirectory(output);
        switch (mode) {
            case Append -> throw new IllegalArgumentException("the safetensors writer does not append: a"
                    + " checkpoint's index and a dataset's manifest describe one job's files. Write into a new"
                    + " folder, or with mode(\"overwrite\")");
            case Ignore -> {
                if (holdsFiles || notAFolder) {
                    return;
                }
            }
            case ErrorIfExists -> {
                if (notAFolder) {
                    throw new StorageException(ErrorCode.NOT_A_FILE, output.toString(), "is not a folder");
                }
                if (holdsFiles && store.isPresent()) {
                    throw StoreOutput.notEmpty(store.get());
                } else if (holdsFiles) {
                    Staging.refuseIfHoldsFiles(output);
                }
            }
            default -> {
                // overwrite: the job commit replaces the folder's content
            }
        }
        Map<String, String> inner = new HashMap<>(options);
        inner.put(WriteOptions.SAVE_MODE, mode == SaveMode.Overwrite ? "overwrite" : "create");
        Dataset<Row> rows = data;
        if (parsed.layout() == WriteOptions.Layout.KEYED && parsed.duplicates() == WriteOptions.Duplicates.LAST) {
            rows = lastOfEachKey(data, parsed.key());
        }
        rows.write().format(SafetensorsWriteProvider.class.getName()).options(inner)
                .mode(mode == SaveMode.Overwrite ? SaveMode.Overwrite : SaveMode.Append).save();
    }

    /** Keeps the last row of each key in the dataset's order (partition by partition, row by row). */
    private static Dataset<Row> lastOfEachKey(Dataset<Row> data, String key) {
        return data.withColumn(POSITION, functions.monotonically_increasing_id())
                .withColumn(RANK, functions.row_number().over(Window.partitionBy(functions.col(key))
                        .orderBy(functions.col(POSITION).desc())))
                .where(functions.col(RANK).equalTo(1)).drop(POSITION, RANK);
    }

    private static boolean isEmpty(Path folder) throws IOException {
        try (var entries = Files.newDirectoryStream(folder)) {
            for (Path p : entries) {
                if (!p.getFileName().toString().startsWith(Staging.PREFIX)) {
                    return false;
                }
            }
            return true;
        }
    }
}
