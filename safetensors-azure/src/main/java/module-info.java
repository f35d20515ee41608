/**
 * The Azure Blob Storage backend: {@link dev.safetensors.azure.AzureSource} reads one blob (or one version or
 * snapshot of it) with verified ranged GETs, pinned to the ETag of the first response, and
 * {@link dev.safetensors.azure.AzureSourceProvider} opens {@code az://}, {@code azure://}, {@code abfss://} and
 * {@code abfs://} locations for {@link java.util.ServiceLoader} users, and
 * {@link dev.safetensors.azure.AzureObjectWriter} writes block blobs at them.
 *
 * <p>azure-identity is optional ({@code requires static}): when its module is resolved (on the class path, or on the
 * module path with {@code --add-modules com.azure.identity}), an account without a key, SAS or connection string
 * signs in with {@code DefaultAzureCredential}.
 */
module dev.safetensors.azure {
    requires transitive dev.safetensors.api;
    requires transitive com.azure.storage.blob;
    requires com.azure.core.http.jdk.httpclient;
    requires java.net.http;
    requires static com.azure.identity;

    exports dev.safetensors.azure;

    provides dev.safetensors.RandomAccessSourceProvider with dev.safetensors.azure.AzureSourceProvider;
    provides dev.safetensors.spi.ObjectWriterProvider with dev.safetensors.azure.AzureObjectWriter;
}
