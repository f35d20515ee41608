/** The runnable example of {@code dev.safetensors.memory}: {@link dev.safetensors.examples.memory.MapAnySize}. */
module dev.safetensors.examples.memory {
    requires dev.safetensors.memory;

    exports dev.safetensors.examples.memory;
}
