/**
 * Runnable examples of the safetensors library, one per use case: {@link dev.safetensors.examples.InspectLocal},
 * {@link dev.safetensors.examples.InspectS3}, {@link dev.safetensors.examples.InspectGcs},
 * {@link dev.safetensors.examples.InspectHub}, {@link dev.safetensors.examples.CopyTensor},
 * {@link dev.safetensors.examples.ReadFloats}, {@link dev.safetensors.examples.MapTensor},
 * {@link dev.safetensors.examples.SliceFromS3}, {@link dev.safetensors.examples.ReadAcrossShards},
 * {@link dev.safetensors.examples.DownloadCheckpoint},
 * {@link dev.safetensors.examples.WriteCheckpoint}, and
 * {@link dev.safetensors.examples.WriteSamples}, which regenerates the sample data in {@code examples/data}.
 *
 * <p>The GCS backend is not required: {@code InspectGcs} finds it through {@link java.util.ServiceLoader}, like any
 * program that only names {@code dev.safetensors.core}.
 */
// "s3" is the storage system's name, so the module name's trailing digit stays.
@SuppressWarnings("module")
module dev.safetensors.examples {
    requires dev.safetensors.core;
    requires dev.safetensors.s3;
    requires dev.safetensors.http;
    requires tools.jackson.core;

    exports dev.safetensors.examples;
}
