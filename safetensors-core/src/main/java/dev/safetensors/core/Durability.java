package dev.safetensors.core;

/**
 * When a writer forces what it wrote to the device ({@code fsync}), trading speed for what survives a power cut or
 * a kernel crash. Every choice keeps the atomicity readers see while the machine runs (the old files or the whole
 * new ones); only what a crash of the machine itself leaves differs.
 */
public enum Durability {
    /**
     * Force every file as soon as it is written, then the folder before the first rename (the default): after a
     * crash, the old checkpoint or the new one is on the device, never a mix.
     */
    EACH_FILE,
    /**
     * Force every file once all are written, then the folder, before the first rename: the same guarantee as
     * {@link #EACH_FILE}, with the syncs grouped at the end, where the device can merge them.
     */
    AT_END,
    /**
     * Never force: fastest, for scratch output. A crash of the machine (not of the JVM) may leave files empty or
     * partly written under their final names.
     */
    NONE
}
