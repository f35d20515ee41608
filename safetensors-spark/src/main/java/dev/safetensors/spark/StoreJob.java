package dev.safetensors.spark;

import dev.safetensors.Location;

import java.io.Serializable;
import java.util.Locale;
import java.util.UUID;

/**
 * The names one write job gives its objects under a store prefix: {@code PREFIX-JOB-PPPPP-KKKKK.safetensors}, the
 * partition and the file's index within the task, final from the moment a task uploads them, so that the job commit
 * renames nothing (a store has no rename). The job id makes the names this job's own: a task may overwrite one, as
 * it can only be a dead earlier attempt's of the same partition, and the objects of a killed job are recognised by
 * it.
 *
 * @param prefix     the output prefix, ending in {@code /}
 * @param jobId      eight hex digits, new for each job
 * @param filePrefix the write's {@code prefix} option, the start of every file name
 */
record StoreJob(String prefix, String jobId, String filePrefix) implements Serializable {

    /** @return a job of a new id writing under {@code prefix} */
    static StoreJob start(Location prefix, WriteOptions options) {
        return new StoreJob(prefix.text(), UUID.randomUUID().toString().substring(0, 8), options.prefix());
    }

    /**
     * @param partition the task's partition
     * @param k         the file's index within the task, from 0
     * @return the object's name below the prefix; the index is five digits, not three, so that names sort in write
     *         order up to 100,000 files per task (a samples task writes one file per batch)
     */
    String name(int partition, int k) {
        return String.format(Locale.ROOT, "%s-%s-%05d-%05d.safetensors", filePrefix, jobId, partition, k);
    }

    /** @return whether an object name below the prefix is one of this job's */
    boolean owns(String name) {
        return name.startsWith(filePrefix + "-" + jobId + "-") && name.endsWith(Location.FILE_SUFFIX)
                && name.indexOf('/') < 0;
    }

    /** @return the location of a name below the prefix (this writer's names need no percent-encoding) */
    Location at(String name) {
        return Location.parse(prefix + name);
    }
}
