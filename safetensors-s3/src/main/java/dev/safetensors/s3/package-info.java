/**
 * Reads and writes safetensors files stored in Amazon S3 or an S3-compatible store.
 *
 * <p>Entry points: {@link dev.safetensors.s3.S3SourceProvider} for {@code s3://} URIs (found by
 * {@link java.util.ServiceLoader}), {@link dev.safetensors.s3.S3Source#open} for a caller's own {@code S3Client},
 * {@link dev.safetensors.s3.S3ObjectWriter} to write {@code s3://} objects (also found by
 * {@link java.util.ServiceLoader}), {@link dev.safetensors.s3.S3ClientOptions} for a client set up the way this
 * backend needs it.
 */
package dev.safetensors.s3;
