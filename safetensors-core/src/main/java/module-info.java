/**
 * The strict safetensors header validator ({@link dev.safetensors.core.Safetensors}), local files
 * ({@link dev.safetensors.core.FileSource}) and source discovery ({@link dev.safetensors.core.Sources}), which finds
 * remote backends through {@link java.util.ServiceLoader} without naming any of them.
 */
module dev.safetensors.core {
    requires transitive dev.safetensors.api;
    requires tools.jackson.core;

    exports dev.safetensors.core;

    uses dev.safetensors.RandomAccessSourceProvider;
    uses dev.safetensors.spi.ObjectWriterProvider;
    provides dev.safetensors.RandomAccessSourceProvider with dev.safetensors.core.FileSourceProvider;
    provides dev.safetensors.spi.ObjectWriterProvider with dev.safetensors.core.FileObjectWriter;
}
