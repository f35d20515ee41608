package dev.safetensors.spark;

import org.apache.spark.sql.connector.read.InputPartition;

import java.util.List;

/** The groups of files one task reads. */
record FilePartition(List<FileGroup> groups) implements InputPartition {
    FilePartition {
        groups = List.copyOf(groups);
    }
}
