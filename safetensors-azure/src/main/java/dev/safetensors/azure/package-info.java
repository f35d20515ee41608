/**
 * The Azure Blob Storage backend (ADLS Gen2 included): {@link dev.safetensors.azure.AzureSource} reads one blob
 * with verified ranged GETs and a pinned ETag; {@link dev.safetensors.azure.AzureSourceProvider} registers the
 * {@code az}, {@code azure}, {@code abfss} and {@code abfs} schemes with {@link java.util.ServiceLoader}, and
 * {@link dev.safetensors.azure.AzureObjectWriter} writes block blobs at them;
 * {@link dev.safetensors.azure.AzureClientOptions} says how a client is built from the environment or from the
 * application's settings.
 *
 * <h2>Why the GET is sent through the client's pipeline and not through {@code BlobClient}</h2>
 * {@code BlobClient} either writes a range into an {@code OutputStream} (no way to abandon a body that is longer than
 * asked) or opens a {@code BlobInputStream} that first asks for the blob's properties (one more request) and reads in
 * chunks of its own choosing. The backend therefore sends the Get Blob request itself through the
 * {@code BlobServiceClient}'s {@code HttpPipeline}, which carries its credentials (shared key signing, SAS, bearer
 * token), date and version headers and HTTP client, and hands the status, headers and body to the shared layer.
 * The pipeline's retry policy is left out: retries are the shared {@link dev.safetensors.spi.RemotePolicy}'s.
 *
 * <p>{@link dev.safetensors.azure.AzureObjectWriter} sends its Put Blob, Put Block and Put Block List requests the
 * same way, for the same reason: the SDK's uploads choose their own block sizes, parallelism and retries, where the
 * writer keeps to {@link dev.safetensors.spi.UploadOptions} and the shared policy.
 */
package dev.safetensors.azure;
