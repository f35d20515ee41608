/**
 * The public types of the safetensors library: the parsed header model ({@link dev.safetensors.SafetensorsHeader},
 * {@link dev.safetensors.TensorInfo}, {@link dev.safetensors.DType}), the validation policy
 * ({@link dev.safetensors.Limits}), the exception family, and the storage SPI
 * ({@link dev.safetensors.RandomAccessSource}, {@link dev.safetensors.RandomAccessSourceProvider}).
 *
 * <p>The {@code dev.safetensors.spi} package holds what every remote backend needs to honour the SPI
 * contract (range verification, request counting, name redaction), written once.
 */
module dev.safetensors.api {
    exports dev.safetensors;
    exports dev.safetensors.spi;
}
