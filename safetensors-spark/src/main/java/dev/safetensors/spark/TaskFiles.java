package dev.safetensors.spark;

import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.util.List;

/**
 * What a committed task attempt wrote: files under a folder of its own in the job's staging folder, which the
 * driver renames into the output at job commit; or, for a store output, objects under the output prefix, already
 * under their final names.
 *
 * @param partition the partition the attempt wrote
 * @param folder    the attempt's folder, or the output prefix
 * @param files     its files (or objects, by name below the prefix), in the order written
 */
record TaskFiles(int partition, String folder, List<WrittenFile> files) implements WriterCommitMessage {
}
