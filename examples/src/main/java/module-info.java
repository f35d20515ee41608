/**
 * Runnable examples of the safetensors library, one per use case: {@link dev.safetensors.examples.InspectLocal},
 * {@link dev.safetensors.examples.CopyTensor}, {@link dev.safetensors.examples.ReadFloats},
 * {@link dev.safetensors.examples.WriteCheckpoint}, and {@link dev.safetensors.examples.WriteSamples}, which
 * regenerates the sample data in {@code examples/data}.
 */
module dev.safetensors.examples {
    requires dev.safetensors.core;
    requires tools.jackson.core;

    exports dev.safetensors.examples;
}
