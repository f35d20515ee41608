/**
 * The Amazon S3 storage backend: {@link dev.safetensors.s3.S3Source} reads one object (or one version of it) with
 * verified ranged GETs, pinned to the ETag of the first response, and {@link dev.safetensors.s3.S3SourceProvider}
 * opens {@code s3://bucket/key[?versionId=...]} URIs for {@link java.util.ServiceLoader} users;
 * {@link dev.safetensors.s3.S3ObjectWriter} writes {@code s3://bucket/key} objects, whole or not at all.
 *
 * <p>Works with any S3-compatible store (MinIO, Ceph, R2, s3proxy) through an endpoint override: given in
 * {@link dev.safetensors.s3.S3ClientOptions}, by the SDK's {@code AWS_ENDPOINT_URL_S3} or {@code AWS_ENDPOINT_URL},
 * or, for a tool that only finds the provider through {@link java.util.ServiceLoader} (the {@code safetensors}
 * command loads this module into a layer of its own), by the system properties
 * {@value dev.safetensors.s3.S3ClientOptions#ENDPOINT_PROPERTY} and
 * {@value dev.safetensors.s3.S3ClientOptions#PATH_STYLE_PROPERTY}.
 */
// "s3" is the storage system's name, so the trailing digit stays; S3Client is part of this module's API, so the SDK
// module is required transitively even though it is an automatic module.
@SuppressWarnings({"module", "requires-transitive-automatic"})
module dev.safetensors.s3 {
    requires transitive dev.safetensors.api;
    requires transitive software.amazon.awssdk.services.s3;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.http;
    requires software.amazon.awssdk.http.urlconnection;
    requires software.amazon.awssdk.metrics;
    requires software.amazon.awssdk.profiles;

    exports dev.safetensors.s3;

    provides dev.safetensors.RandomAccessSourceProvider with dev.safetensors.s3.S3SourceProvider;
    provides dev.safetensors.spi.ObjectWriterProvider with dev.safetensors.s3.S3ObjectWriter;
}
