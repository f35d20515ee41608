package dev.safetensors.spark;

import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.util.List;

/**
 * What a committed task attempt wrote: files under a folder of its own in the job's staging folder, which the
 * driver renames into the output at job commit.
 *
 * @param partition the partition the attempt wrote
 * @param folder    the attempt's folder
 * @param files     its files, in the order written
 */
record TaskFiles(int partition, String folder, List<WrittenFile> files) implements WriterCommitMessage {
}
