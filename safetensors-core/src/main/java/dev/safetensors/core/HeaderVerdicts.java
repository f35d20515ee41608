package dev.safetensors.core;

import dev.safetensors.Location;

/**
 * The check of {@link SafetensorsClient#check(java.util.List)}: each file's header read through the client's
 * registry and validated under its limits, the file's verdict and the checkpoint's given as they are.
 */
final class HeaderVerdicts implements CheckHandler<CheckVerdict> {
    private final SafetensorsClient client;

    HeaderVerdicts(SafetensorsClient client) {
        this.client = client;
    }

    @Override
    public CheckVerdict file(Location file, CheckpointFiles checkpoint) {
        return ShardHeaders.check(file, client);
    }

    @Override
    public ShardVerdict verdict(CheckVerdict result) {
        return (ShardVerdict) result;
    }

    @Override
    public CheckVerdict checkpoint(CheckpointVerdict verdict) {
        return verdict;
    }
}
