/**
 * The Google Cloud Storage backend: {@link dev.safetensors.gcs.GcsSource} reads {@code gs://bucket/object} with
 * verified ranged GETs and a pinned generation; {@link dev.safetensors.gcs.GcsSourceProvider} registers the
 * {@code gs} scheme with {@link java.util.ServiceLoader}, and {@link dev.safetensors.gcs.GcsObjectWriter} writes it
 * (conditional creates, one request or a resumable upload, CRC32C checked).
 *
 * <h2>Why the media GET is issued here and not through {@code Storage.reader}</h2>
 * The client's reader never checks the status, {@code Content-Range} or its own limit, and returns -1 silently
 * past the end. The backend therefore sends the same {@code /download/storage/v1/b/B/o/O?alt=media} request
 * itself, through the client's {@code HttpTransportOptions} (its transport factory and its request initializer,
 * which carries credentials, timeouts and client headers), and checks every response.
 *
 * <h2>JPMS</h2>
 * This jar is an <em>automatic module</em> named {@code dev.safetensors.gcs} (manifest
 * {@code Automatic-Module-Name}), not an explicit one. An explicit module would have to {@code requires}
 * {@code google.cloud.storage}, {@code google.cloud.core}, {@code google.cloud.core.http} and {@code gax}: names
 * derived from file names, which change when a jar is renamed, and whose jars must then sit on the module path,
 * where resolving one automatic module resolves them all and split packages stop the boot layer: with
 * google-cloud-storage 2.63.0 the first failure is {@code javax.annotation} (jsr305 and javax.annotation-api),
 * and {@code com.google.storage.v2} is split across proto-, grpc- and gapic-google-cloud-storage-v2. An automatic
 * module reads the unnamed module instead, so applications put {@code dev.safetensors.api} and this jar on the
 * module path, keep the Google jars on the class path, and add {@code --add-modules dev.safetensors.gcs} (or
 * {@code requires dev.safetensors.gcs}). Its {@code META-INF/services} entries become the module's
 * {@code provides dev.safetensors.RandomAccessSourceProvider with dev.safetensors.gcs.GcsSourceProvider} and
 * {@code provides dev.safetensors.spi.ObjectWriterProvider with dev.safetensors.gcs.GcsObjectWriter}.
 */
package dev.safetensors.gcs;
