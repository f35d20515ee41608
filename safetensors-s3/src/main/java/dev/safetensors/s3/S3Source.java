package dev.safetensors.s3;

import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractRangedSource;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RangeAnswer;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.SourceNames;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

import java.io.IOException;
import java.util.Objects;

/**
 * One S3 object read with ranged GETs. Verification, end of object, size, version pin, retries and deadlines are
 * those of {@link AbstractRangedSource}, the same as for every remote store; this class only sends the GET:
 *
 * <ul>
 *   <li>Each {@link #read} and each {@link #openRange} is one GET with {@code Range: bytes=a-b} for exactly the
 *       bytes asked (clipped to the size once it is known); {@link #size()} before any read is a one-byte GET.</li>
 *   <li>The first answer pins the ETag, sent as {@code If-Match} on every later request, and every later answer
 *       must report the same ETag (and version). With a {@code versionId} in the {@link S3Location}, every request
 *       asks for that version.</li>
 *   <li>Error answers keep their S3 error code in the message ({@code NoSuchKey}, {@code AccessDenied}).</li>
 *   <li>Each request is logged at {@link System.Logger.Level#DEBUG} with method, range and status.</li>
 * </ul>
 *
 * <p>Retries are this library's ({@link RemotePolicy}): a client built by {@link S3ClientOptions} does not retry by
 * itself, so the SDK never waits on a server's say-so. A caller's own client keeps its retry strategy, which then
 * runs inside each of this source's attempts.
 *
 * <p>Thread-safe: reads carry no cursor. Closing the source does not close the {@link S3Client}, which belongs to
 * whoever built it.
 */
public final class S3Source extends AbstractRangedSource<S3Version> {
    private static final System.Logger LOG = System.getLogger(S3Source.class.getName());

    private final S3Client client;
    private final S3Location location;
    private final AttemptCounter attempts;

    private S3Source(S3Client client, S3Location location, RemotePolicy policy) {
        super(location.name(), policy, location.versionId() == null ? null : new S3Version(null, location.versionId()));
        this.client = client;
        this.location = location;
        this.attempts = new AttemptCounter(counter());
    }

    /**
     * Opens a source over one object with {@link RemotePolicy#DEFAULT}. No request is made until the first read or
     * {@link #size()}.
     *
     * <p>A client built by {@link S3ClientOptions} is set up as this backend needs; a client of the caller's own
     * should compute checksums only {@code WHEN_REQUIRED}, since ranged GETs cannot be checked against
     * whole-object checksums.
     *
     * @param client   the client to send requests with; it stays open when the source is closed
     * @param location the object
     * @return the source
     */
    public static S3Source open(S3Client client, S3Location location) {
        return open(client, location, RemotePolicy.DEFAULT);
    }

    /**
     * @param client   the client to send requests with; it stays open when the source is closed
     * @param location the object
     * @param policy   retries and deadlines
     * @return a source over the object; no request is made yet
     */
    public static S3Source open(S3Client client, S3Location location, RemotePolicy policy) {
        return new S3Source(Objects.requireNonNull(client, "client"), Objects.requireNonNull(location, "location"),
                Objects.requireNonNull(policy, "policy"));
    }

    /** @return the object this source reads */
    public S3Location location() {
        return location;
    }

    /**
     * @return the ETag and version id of the pinned object once an answer was seen; the requested version id before
     *         that
     */
    @Override
    public SourceIdentity identity() {
        S3Version known = version();
        String etag = known == null ? null : known.etag();
        String versionId = known != null && known.versionId() != null ? known.versionId() : location.versionId();
        return new SourceIdentity(etag, versionId, null, null, null);
    }

    @Override
    protected RangeAnswer send(long position, long length, S3Version version) throws IOException {
        String range = "bytes=" + position + "-" + (position + length - 1);
        String request = "GET " + range;
        AskedHost asked = new AskedHost();
        GetObjectRequest.Builder builder = GetObjectRequest.builder()
                .bucket(location.bucket()).key(location.key())
                .versionId(version != null && version.versionId() != null ? version.versionId() : location.versionId())
                .range(range)
                .overrideConfiguration(c -> c.addMetricPublisher(attempts).addPlugin(DotSegments.PLUGIN)
                        .addPlugin(asked.plugin()));
        if (version != null && version.etag() != null) {
            builder.ifMatch(version.etag());
        }
        ResponseInputStream<GetObjectResponse> body;
        try {
            body = client.getObject(builder.build());
        } catch (SdkServiceException e) {
            S3Answer answer = SdkFailureTranslator.answer(e);
            log(request, answer.status() + " " + answer.errorCode());
            return answer;
        } catch (SdkClientException e) {
            IOException failure = SdkFailureTranslator.noAnswer(name(), request, e, asked.endpoint());
            log(request, "failed: " + failure.getMessage());
            throw failure;
        }
        GetObjectResponse response = body.response();
        int status = response.sdkHttpResponse().statusCode();
        log(request, status + " " + ContentRange.parse(response.contentRange()).map(r -> r + ", " + r.length()
                + " bytes").orElse("without a Content-Range, Content-Length " + response.contentLength()));
        return new S3Answer(status, name -> response.sdkHttpResponse().firstMatchingHeader(name).orElse(null), body,
                body::abort, "", null);
    }

    @Override
    protected S3Version identify(RangeAnswer answer, S3Version version) throws IOException {
        S3Version known = version == null ? new S3Version(null, null) : version;
        return known.merge(name(), answer.header("ETag"), answer.header("x-amz-version-id"));
    }

    @Override
    protected IOException statusFailure(RangeAnswer answer, S3Version version, int attempts) {
        S3Answer s3 = (S3Answer) answer;
        String code = s3.errorCode().isEmpty() ? "" : " " + SourceNames.clip(s3.errorCode());
        if (answer.status() == 404 || code.contains("NoSuch")) {
            return new SourceNotFoundException(name(), "no such S3 object (status " + answer.status() + code + ")");
        }
        IOException failure = super.statusFailure(answer, version, attempts);
        if (code.isEmpty()) {
            return failure;
        }
        if (answer.status() == 403) {
            return new SourceAccessDeniedException(name(), "S3 denied access (status 403" + code
                    + "); check the credentials, the bucket policy and the region");
        }
        if (failure instanceof StorageException storage && !(failure instanceof SourceChangedException)) {
            return new StorageException(storage.code(), name(), "the server answered "
                    + answer.status() + code + (s3.requestId() == null ? "" : " (request id "
                    + SourceNames.clip(s3.requestId()) + ")") + " after " + attempts + " attempt"
                    + (attempts == 1 ? "" : "s"), failure.getCause());
        }
        return failure;
    }

    private void log(String request, String outcome) {
        LOG.log(System.Logger.Level.DEBUG, () -> request + " " + name() + " -> " + outcome);
    }
}
