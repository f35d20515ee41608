package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.BucketPrefix;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

import java.io.IOException;
import java.util.Objects;

/**
 * Writes {@code s3://bucket/key} objects: the write side of {@link S3SourceProvider}, with the same constructors,
 * the same lazily built (or given) client and the same {@link RemotePolicy} for every request.
 *
 * <h2>Requests per object</h2>
 * <ul>
 *   <li>an object that fits in one {@link UploadOptions#partSize() part} (the empty object included):
 *       {@code HeadObject} + {@code PutObject}, 2 requests;</li>
 *   <li>a larger one of N parts: {@code HeadObject} + {@code CreateMultipartUpload} + N {@code UploadPart} +
 *       {@code CompleteMultipartUpload}, N + 3 requests; up to {@link UploadOptions#parallelism()} parts upload at
 *       once, from a pool of threads each upload starts with its first part and stops when it ends.</li>
 * </ul>
 * With {@link UploadOptions#overwrite()} the {@code HeadObject} is left out. A retry the policy makes is another
 * request of the same call; an abandoned multipart upload adds one {@code AbortMultipartUpload}.
 *
 * <h2>No overwrite unless asked</h2>
 * The {@code HeadObject} refuses an object that exists when the upload starts; {@code PutObject} and
 * {@code CompleteMultipartUpload} are sent with {@code If-None-Match: *}, so S3 refuses one that appeared meanwhile
 * (412 PreconditionFailed, or 409 ConditionalRequestConflict for a concurrent write), which fails the commit with
 * {@link ErrorCode#ALREADY_EXISTS} once the multipart upload is aborted. A store that ignores the condition still
 * gets the check before the upload.
 *
 * <h2>Checksums</h2>
 * Every part and the whole object are sent with their CRC32C, computed here; the multipart upload asks for a
 * full-object CRC32C. What S3 reports back is compared before the commit returns: a part whose checksum differs
 * fails the upload, and an object whose checksum differs is deleted and fails it, both with
 * {@link ErrorCode#CHECKSUM_MISMATCH}, the code of content that is not what was written.
 * {@link dev.safetensors.spi.WrittenObject#checksum()} is {@code crc32c:BASE64} of the whole object as S3 reported
 * it, or {@code crc32c:BASE64-N}, the composite checksum, from a store that reports only that; empty from a store that
 * reports none.
 *
 * <p>The checksum headers ({@code x-amz-checksum-crc32c}, {@code x-amz-checksum-type}) are S3's; a compatible store
 * that refuses headers it does not know (s3proxy unless it ignores unknown headers) answers 501 NotImplemented.
 *
 * <p>Failures are coded as for the reads ({@link dev.safetensors.spi.StatusMapping}) and name the object by
 * {@link Location#display()} and the host that answered, never credentials or signed URLs. Thread-safe.
 */
public final class S3ObjectWriter implements ObjectWriterProvider, AutoCloseable {
    private final LazyS3Client client;
    private final RemotePolicy policy;

    /**
     * A writer whose client comes from the SDK's configuration chain and the system properties
     * {@value S3ClientOptions#ENDPOINT_PROPERTY} and {@value S3ClientOptions#PATH_STYLE_PROPERTY}, read now, and is
     * built on first use; a malformed property fails that use with {@link ErrorCode#INVALID_ENDPOINT}. The
     * constructor {@link java.util.ServiceLoader} uses.
     */
    public S3ObjectWriter() {
        this.client = LazyS3Client.fromSystemProperties();
        this.policy = RemotePolicy.DEFAULT;
    }

    /** @param options how to build the client, on first use */
    public S3ObjectWriter(S3ClientOptions options) {
        this(options, RemotePolicy.DEFAULT);
    }

    /**
     * @param options how to build the client, on first use
     * @param policy  retries of every request
     */
    public S3ObjectWriter(S3ClientOptions options, RemotePolicy policy) {
        this.client = LazyS3Client.of(options);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @param client the client every request uses; the caller closes it when done with the writer */
    public S3ObjectWriter(S3Client client) {
        this(client, RemotePolicy.DEFAULT);
    }

    /**
     * @param client the client every request uses; the caller closes it when done with the writer
     * @param policy retries of every request
     */
    public S3ObjectWriter(S3Client client, RemotePolicy policy) {
        this.client = LazyS3Client.given(client);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @return whether the location is an {@code s3:} URI */
    @Override
    public boolean supports(Location location) {
        return location.scheme().equals("s3");
    }

    /**
     * Checks that the object is absent (unless overwriting) and starts the upload; the bytes are sent once a part
     * is full or the upload commits.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} for a location that is not {@code s3://bucket/key}, or
     *                     that names a version or a folder ({@code key/}); {@link ErrorCode#ALREADY_EXISTS} for an
     *                     existing object not to be overwritten; the {@code HeadObject}'s coded failure; a
     *                     {@link StorageException} if no client can be configured
     */
    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        S3Location target = target(object);
        S3Client s3 = client.get();
        String name = object.display();
        if (!options.overwrite() && exists(s3, name, target)) {
            throw new StorageException(ErrorCode.ALREADY_EXISTS, name, "the object exists and is not to be"
                    + " overwritten");
        }
        return new S3Upload(s3, policy, target, object, options);
    }

    /**
     * Deletes the object with {@code DeleteObject}; an absent one succeeds, as S3 answers.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} as for {@link #create}; the request's coded failure
     */
    @Override
    public void delete(Location object) throws IOException {
        deleteObject(client.get(), policy, object.display(), target(object));
    }

    /**
     * Aborts the incomplete multipart uploads below the prefix whose objects {@code objects} accepts, listed with
     * {@code ListMultipartUploads} (one request per page of up to 1,000 uploads) and aborted one
     * {@code AbortMultipartUpload} each.
     *
     * @param prefix  the prefix, {@code s3://bucket/prefix/}
     * @param objects which objects' uploads to abort
     * @return how many were aborted
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} if the prefix names no bucket;
     *                     {@link ErrorCode#INVALID_LISTING} for a listing that names an upload outside the prefix or
     *                     does not advance; a request's coded failure
     */
    @Override
    public int abortIncomplete(Location prefix, java.util.function.Predicate<Location> objects) throws IOException {
        BucketPrefix at = BucketPrefix.parse(prefix);
        S3Client s3 = client.get();
        String name = prefix.display();
        int aborted = 0;
        String keyMarker = null;
        String uploadIdMarker = null;
        while (true) {
            String key = keyMarker;
            String id = uploadIdMarker;
            ListMultipartUploadsResponse page = S3Request.call(policy, name, "ListMultipartUploads",
                    config -> s3.listMultipartUploads(b -> b.bucket(at.bucket()).prefix(at.prefix()).keyMarker(key)
                            .uploadIdMarker(id).overrideConfiguration(config)));
            for (MultipartUpload upload : page.uploads()) {
                if (!upload.key().startsWith(at.prefix())) {
                    throw new StorageException(ErrorCode.INVALID_LISTING, name, "the upload listing named a key"
                            + " outside the prefix");
                }
                S3Location staged = new S3Location(at.bucket(), upload.key(), null);
                if (objects.test(at.locationOf(upload.key()))
                        && S3Multipart.abort(s3, policy, staged.name(), staged, upload.uploadId())) {
                    aborted++;
                }
            }
            if (!Boolean.TRUE.equals(page.isTruncated())) {
                return aborted;
            }
            if (Objects.equals(page.nextKeyMarker(), key) && Objects.equals(page.nextUploadIdMarker(), id)) {
                throw new StorageException(ErrorCode.INVALID_LISTING, name, "a truncated page of the upload"
                        + " listing does not advance");
            }
            keyMarker = page.nextKeyMarker();
            uploadIdMarker = page.nextUploadIdMarker();
        }
    }

    /** Closes the client this writer built, if any; a client passed in stays open. Idempotent. */
    @Override
    public void close() {
        client.close();
    }

    /** Deletes an object; an absent one (S3 answers 204, some stores 404 NoSuchKey) succeeds. */
    static void deleteObject(S3Client s3, RemotePolicy policy, String name, S3Location target) throws IOException {
        S3Request.call(policy, name, "DeleteObject", config -> {
            try {
                return s3.deleteObject(b -> b.bucket(target.bucket()).key(target.key())
                        .overrideConfiguration(config));
            } catch (SdkServiceException e) {
                if (e.statusCode() == 404 && "NoSuchKey".equals(SdkFailureTranslator.errorCode(e))) {
                    return null;
                }
                throw e;
            }
        });
    }

    private boolean exists(S3Client s3, String name, S3Location target) throws IOException {
        return S3Request.call(policy, name, "HeadObject", config -> {
            try {
                s3.headObject(b -> b.bucket(target.bucket()).key(target.key()).overrideConfiguration(config));
                return true;
            } catch (SdkServiceException e) {
                if (e.statusCode() == 404) {
                    return false;
                }
                throw e;
            }
        });
    }

    /** @return the object a writable location names: a key, not a folder, and no version */
    private static S3Location target(Location object) throws IOException {
        S3Location target;
        try {
            target = S3Location.parse(object.requireUri());
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, object.display() + ": " + e.getMessage());
        }
        if (target.versionId() != null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, object.display() + ": a version is"
                    + " written by S3 itself; write s3://bucket/key without versionId");
        }
        if (target.key().endsWith("/")) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, object.display() + ": names a folder;"
                    + " an object's key does not end in /");
        }
        return target;
    }
}
