package dev.safetensors.spark;

import org.apache.spark.sql.connector.read.InputPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Packs groups, as they come, into partitions of about {@code filesPerPartition} files and, when tensor data is read,
 * about {@code maxPartitionBytes} bytes (sizes from the listing), never splitting a group. Only the partition being
 * filled holds its groups as objects; a full one is kept in its compact form ({@link FilePartition}).
 */
final class PartitionPacker implements Consumer<FileGroup> {
    private final int filesPerPartition;
    private final long maxPartitionBytes;
    private final List<InputPartition> partitions = new ArrayList<>();
    private List<FileGroup> current = new ArrayList<>();
    private int weight;
    private long bytes;

    /**
     * @param filesPerPartition files a partition closes at
     * @param maxPartitionBytes listed bytes a partition closes at
     */
    PartitionPacker(int filesPerPartition, long maxPartitionBytes) {
        this.filesPerPartition = filesPerPartition;
        this.maxPartitionBytes = maxPartitionBytes;
    }

    @Override
    public void accept(FileGroup g) {
        long size = Math.max(0, g.bytes());
        if (weight > 0 && (weight + g.weight() > filesPerPartition || bytes + size > maxPartitionBytes)) {
            close();
        }
        current.add(g);
        weight += g.weight();
        bytes += size;
    }

    /** @return the partitions, the last one closed */
    InputPartition[] finish() {
        if (!current.isEmpty()) {
            close();
        }
        return partitions.toArray(InputPartition[]::new);
    }

    private void close() {
        partitions.add(new FilePartition(current));
        current = new ArrayList<>();
        weight = 0;
        bytes = 0;
    }
}
