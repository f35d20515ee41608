package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractObjectUpload;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * One object being written by {@link S3ObjectWriter}. The bytes fill a part at a time; the object is one
 * {@code PutObject} if it commits within one part, and a multipart upload otherwise, created when the first part is
 * full and more bytes come, its parts uploaded by a pool of {@link UploadOptions#parallelism()} threads of its own.
 *
 * <p>Memory: each part being filled or uploaded holds one of {@code parallelism + 1} permits, so {@code parallelism}
 * parts upload while the next fills, {@link #write} blocks once all are taken, and the upload holds at most
 * {@link UploadOptions#maxBufferedBytes()}.
 *
 * <p>Checksums: the CRC32C of each part and of the whole object is computed here and sent; what S3 reports back (the
 * part's, and the object's, full-object or composite) is compared with it before the part or the object counts as
 * written. Not thread-safe, as {@link ObjectUpload} says; the part uploads behind it are.
 */
final class S3Upload extends AbstractObjectUpload {
    /** S3's most parts in one upload. */
    static final int MAX_PARTS = 10_000;
    /** How long a part thread waits for another part before it ends. */
    private static final long IDLE_SECONDS = 30;

    private final S3Client client;
    private final RemotePolicy policy;
    private final S3Location target;
    private final Location location;
    private final String name;
    private final UploadOptions options;
    private final Semaphore slots;
    private final CRC32C whole = new CRC32C();
    private final List<Future<SentPart>> parts = new ArrayList<>();

    private PartBuffer current;
    private String uploadId;
    private ThreadPoolExecutor pool;
    /** The first part upload that failed, seen by the writing thread at its next write or commit. */
    private volatile IOException partFailure;

    /** One part S3 accepted: what the complete request names, and its CRC32C for the composite checksum. */
    private record SentPart(CompletedPart part, int crc32c) {
    }

    S3Upload(S3Client client, RemotePolicy policy, S3Location target, Location location, UploadOptions options) {
        this.client = client;
        this.policy = policy;
        this.target = target;
        this.location = location;
        this.name = location.display();
        this.options = options;
        // one buffer per part in flight and the one being filled, so parallelism parts upload while the next fills
        this.slots = new Semaphore(options.parallelism() + 1);
    }

    @Override
    protected void append(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            if (current == null) {
                current = nextBuffer();
            } else if (current.isFull()) {
                // sent only once more bytes come: an object that ends here is still one PutObject
                send(current);
                current = null;
            } else {
                ByteBuffer taken = src.duplicate();
                taken.limit(taken.position() + current.fill(src));
                whole.update(taken);
            }
        }
    }

    /**
     * @return the object, with the checksum S3 reported: {@code crc32c:BASE64} of the whole object, or, from a store
     *         that reports only the composite checksum of a multipart object, {@code crc32c:BASE64-N} (the CRC32C of
     *         the parts' CRC32C values); empty if the store reported none
     */
    @Override
    protected WrittenObject publish() throws IOException {
        try {
            return uploadId == null ? putWhole() : completeParts();
        } finally {
            stopPool();
        }
    }

    /** Waits for the parts in flight, then aborts the multipart upload if one was created and not completed. */
    @Override
    protected void discard() throws IOException {
        current = null;
        // a part still uploading when the abort is sent could stay behind it, billed: the abort waits for it
        for (Future<SentPart> part : parts) {
            try {
                part.get();
            } catch (ExecutionException e) {
                // its failure was reported, or is moot now that the upload is abandoned
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        stopPool();
        if (uploadId != null) {
            String id = uploadId;
            uploadId = null;
            S3Multipart.abort(client, policy, name, target, id);
        }
    }

    /** @return the failure, coded and naming the object */
    @Override
    protected IOException coded(IOException e) {
        return e instanceof ErrorCoded ? e : e instanceof InterruptedIOException
                ? new StorageException(ErrorCode.INTERRUPTED, name, "the upload was interrupted", e)
                : new StorageException(ErrorCode.WRITE_FAILED, name, "the upload failed: " + e, e);
    }

    /** @return a new part to fill, once one of the permits is free */
    private PartBuffer nextBuffer() throws IOException {
        rethrowPartFailure();
        try {
            slots.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(ErrorCode.INTERRUPTED, name, "interrupted while earlier parts uploaded");
        }
        rethrowPartFailure();
        // the first part may be the whole object, so it grows from small; later ones are filled whole
        return new PartBuffer(options.partSize(), uploadId == null && parts.isEmpty() ? options.sizeHint()
                : options.partSize());
    }

    /** Hands a part, and the permit it holds, to the pool; the multipart upload is created for the first one. */
    private void send(PartBuffer part) throws IOException {
        if (parts.size() == MAX_PARTS) {
            slots.release();
            throw new StorageException(ErrorCode.WRITE_FAILED, name, "the object needs more than " + MAX_PARTS
                    + " parts of " + options.partSize() + " bytes, S3's most: give a larger part size");
        }
        if (uploadId == null) {
            try {
                uploadId = S3Multipart.create(client, policy, name, target);
            } catch (IOException e) {
                slots.release();
                throw e;
            }
            pool = new ThreadPoolExecutor(options.parallelism(), options.parallelism(), IDLE_SECONDS,
                    TimeUnit.SECONDS,
                    // a part not yet started holds a permit, so the queue never needs more room than the permits
                    new ArrayBlockingQueue<>(options.parallelism() + 1), r -> {
                        Thread t = new Thread(r, "s3-upload-part " + name);
                        t.setDaemon(true);
                        return t;
                    });
            // an upload its caller never closes does not keep its threads
            pool.allowCoreThreadTimeOut(true);
        }
        int number = parts.size() + 1;
        String id = uploadId;
        parts.add(pool.submit(() -> {
            try {
                return uploadPart(id, number, part);
            } catch (IOException | RuntimeException e) {
                IOException failure = e instanceof IOException io ? io : new StorageException(ErrorCode.WRITE_FAILED,
                        name, "part " + number + " could not be uploaded: " + e, e);
                if (partFailure == null) {
                    partFailure = failure;
                }
                throw failure;
            } finally {
                slots.release();
            }
        }));
    }

    private SentPart uploadPart(String id, int number, PartBuffer part) throws IOException {
        int crc = part.crc32c();
        String expected = S3Crc32c.base64(crc);
        UploadPartResponse response = S3Request.call(policy, name, "UploadPart " + number, config ->
                client.uploadPart(b -> b.bucket(target.bucket()).key(target.key()).uploadId(id).partNumber(number)
                        .contentLength((long) part.length()).checksumCRC32C(expected)
                        .overrideConfiguration(config),
                        RequestBody.fromContentProvider(part::stream, part.length(), "application/octet-stream")));
        String reported = response.checksumCRC32C();
        if (reported != null && !reported.equals(expected)) {
            throw mismatch("part " + number, reported, expected);
        }
        return new SentPart(CompletedPart.builder().partNumber(number).eTag(response.eTag())
                .checksumCRC32C(expected).build(), crc);
    }

    private WrittenObject putWhole() throws IOException {
        PartBuffer part = current;
        current = null;
        String expected = S3Crc32c.base64((int) whole.getValue());
        RequestBody body = part == null ? RequestBody.empty()
                : RequestBody.fromContentProvider(part::stream, part.length(), "application/octet-stream");
        PutObjectResponse response = S3Request.call(policy, name, "PutObject", config -> {
            PutObjectRequest.Builder request = PutObjectRequest.builder().bucket(target.bucket()).key(target.key())
                    .contentLength(written()).checksumCRC32C(expected).overrideConfiguration(config);
            if (!options.overwrite()) {
                request.ifNoneMatch("*");
            }
            try {
                return client.putObject(request.build(), body);
            } catch (SdkServiceException e) {
                if (refusedCondition(e)) {
                    throw alreadyExists(e);
                }
                throw e;
            }
        });
        return verified(response.checksumCRC32C(), expected, null);
    }

    private WrittenObject completeParts() throws IOException {
        send(current);
        current = null;
        List<SentPart> sent = new ArrayList<>(parts.size());
        for (Future<SentPart> part : parts) {
            sent.add(result(part));
        }
        String expected = S3Crc32c.base64((int) whole.getValue());
        CompleteMultipartUploadResponse response = S3Request.call(policy, name, "CompleteMultipartUpload",
                config -> {
                    CompleteMultipartUploadRequest.Builder request = CompleteMultipartUploadRequest.builder()
                            .bucket(target.bucket()).key(target.key()).uploadId(uploadId)
                            .multipartUpload(m -> m.parts(sent.stream().map(SentPart::part).toList()))
                            .checksumCRC32C(expected).checksumType(ChecksumType.FULL_OBJECT)
                            .overrideConfiguration(config);
                    if (!options.overwrite()) {
                        request.ifNoneMatch("*");
                    }
                    try {
                        return client.completeMultipartUpload(request.build());
                    } catch (SdkServiceException e) {
                        if (refusedCondition(e)) {
                            throw alreadyExists(e);
                        }
                        throw e;
                    }
                });
        // committed: nothing is left to abort, and a mismatch deletes the object itself
        uploadId = null;
        return verified(response.checksumCRC32C(), expected,
                S3Crc32c.composite(sent.stream().map(SentPart::crc32c).toList()));
    }

    /**
     * @param reported  the object's checksum S3 reported, or {@code null}
     * @param expected  the whole object's CRC32C, computed here
     * @param composite the composite checksum of the parts, computed here, or {@code null} for a single PUT
     * @return the object written, once its checksum matches
     * @throws IOException {@link ErrorCode#CHECKSUM_MISMATCH} once the object is deleted, if S3 holds other bytes
     */
    private WrittenObject verified(String reported, String expected, String composite) throws IOException {
        if (reported == null) {
            return new WrittenObject(location, written(), Optional.empty());
        }
        boolean compositeForm = reported.contains("-");
        if (reported.equals(compositeForm ? composite : expected)) {
            return new WrittenObject(location, written(), Optional.of("crc32c:" + reported));
        }
        StorageException mismatch = mismatch("the object", reported, compositeForm ? composite : expected);
        try {
            S3ObjectWriter.deleteObject(client, policy, name, target);
        } catch (IOException e) {
            mismatch.addSuppressed(e);
        }
        throw mismatch;
    }

    private StorageException mismatch(String what, String reported, String expected) {
        return new StorageException(ErrorCode.CHECKSUM_MISMATCH, name, "S3 reports the CRC32C of " + what + " as "
                + reported + " but the bytes written have " + expected);
    }

    /**
     * @return whether S3 refused the create because the object exists: 412 PreconditionFailed, or 409
     *         ConditionalRequestConflict when another write of it raced this one
     */
    private boolean refusedCondition(SdkServiceException e) {
        return !options.overwrite() && (e.statusCode() == 412 || e.statusCode() == 409
                && "ConditionalRequestConflict".equals(SdkFailureTranslator.errorCode(e)));
    }

    private StorageException alreadyExists(SdkServiceException e) {
        return new StorageException(ErrorCode.ALREADY_EXISTS, name, "the object appeared while it was being"
                + " written, and is not to be overwritten (S3 answered " + e.statusCode() + " to If-None-Match: *)",
                e);
    }

    private SentPart result(Future<SentPart> part) throws IOException {
        try {
            return part.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io
                    : new StorageException(ErrorCode.WRITE_FAILED, name, "a part upload failed: " + e.getCause(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(ErrorCode.INTERRUPTED, name, "interrupted while the parts uploaded");
        }
    }

    private void rethrowPartFailure() throws IOException {
        IOException failure = partFailure;
        if (failure != null) {
            throw failure;
        }
    }

    private void stopPool() {
        if (pool != null) {
            pool.shutdown();
        }
    }
}
