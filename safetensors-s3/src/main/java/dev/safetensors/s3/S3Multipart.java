package dev.safetensors.s3;

import dev.safetensors.spi.RemotePolicy;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumType;

import java.io.IOException;

/**
 * The two calls that begin and end a multipart upload outside its parts: {@code CreateMultipartUpload}, asking for a
 * full-object CRC32C checksum so that S3 reports the same CRC32C of the object the writer computes, and
 * {@code AbortMultipartUpload}, which succeeds for an upload already gone.
 */
final class S3Multipart {
    private S3Multipart() {
    }

    /**
     * @param client the client
     * @param policy retries
     * @param name   the object, as displayed
     * @param target the object
     * @return the new upload's id
     * @throws IOException the request's coded failure
     */
    static String create(S3Client client, RemotePolicy policy, String name, S3Location target) throws IOException {
        return S3Request.call(policy, name, "CreateMultipartUpload", config -> client.createMultipartUpload(b -> b
                .bucket(target.bucket()).key(target.key()).checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                .checksumType(ChecksumType.FULL_OBJECT).overrideConfiguration(config)).uploadId());
    }

    /**
     * Aborts an upload; one S3 no longer knows ({@code NoSuchUpload}: aborted, or completed, meanwhile) is gone
     * already.
     *
     * @param client   the client
     * @param policy   retries
     * @param name     the object, as displayed
     * @param target   the object
     * @param uploadId the upload
     * @return whether this call aborted it, {@code false} if it was gone
     * @throws IOException the request's coded failure
     */
    static boolean abort(S3Client client, RemotePolicy policy, String name, S3Location target, String uploadId)
            throws IOException {
        return S3Request.call(policy, name, "AbortMultipartUpload", config -> {
            try {
                client.abortMultipartUpload(b -> b.bucket(target.bucket()).key(target.key()).uploadId(uploadId)
                        .overrideConfiguration(config));
                return true;
            } catch (SdkServiceException e) {
                if (e.statusCode() == 404 && "NoSuchUpload".equals(SdkFailureTranslator.errorCode(e))) {
                    return false;
                }
                throw e;
            }
        });
    }
}
