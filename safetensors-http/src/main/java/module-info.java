/**
 * A {@link dev.safetensors.RandomAccessSource} over HTTP(S) and the Hugging Face Hub ({@code hf://}), built on
 * {@code java.net.http} alone. Found through {@link java.util.ServiceLoader} as a
 * {@link dev.safetensors.RandomAccessSourceProvider}.
 */
module dev.safetensors.http {
    requires transitive dev.safetensors.api;
    requires java.net.http;
    requires tools.jackson.core;

    exports dev.safetensors.http;

    provides dev.safetensors.RandomAccessSourceProvider with dev.safetensors.http.HttpSourceProvider;
}
