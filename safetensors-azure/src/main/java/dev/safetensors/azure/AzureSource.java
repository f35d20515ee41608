package dev.safetensors.azure;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobServiceClient;
import dev.safetensors.ErrorCode;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractRangedSource;
import dev.safetensors.spi.RangeAnswer;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Azure blob read with ranged GETs. Verification, end of object, size, version pin, retries and deadlines are
 * those of {@link AbstractRangedSource}, the same as for every remote store; this class sends the Get Blob request:
 *
 * <ul>
 *   <li>Each {@link #read} and each {@link #openRange} is one GET with {@code x-ms-range: bytes=a-b}, sent through the
 *       {@code BlobServiceClient}'s pipeline (its credentials and HTTP client) with its retry policies left out.</li>
 *   <li>The first answer pins the ETag, sent as {@code If-Match} on every later request; an answer with another
 *       ETag, or with another {@code x-ms-version-id} than the one asked for, a 412, or a 404 after a successful
 *       read, is a {@link SourceChangedException}. An answer without an ETag is a {@link StorageException}
 *       ({@link ErrorCode#IO_ERROR}): the blob cannot be pinned.</li>
 *   <li>A {@code versionid} or {@code snapshot} in the {@link AzureLocation} is sent on every request.</li>
 *   <li>Failures quote the service's {@code x-ms-error-code} ({@code BlobNotFound}, {@code AuthorizationFailure});
 *       error bodies are not read.</li>
 *   <li>Each request is logged at {@link System.Logger.Level#DEBUG} with the location (never the URL, which may
 *       carry a SAS), range and status.</li>
 * </ul>
 *
 * <p>Thread-safe: reads carry no cursor. Closing the source does not close the client, which belongs to whoever
 * built it.
 */
public final class AzureSource extends AbstractRangedSource<AzureVersion> {
    private static final System.Logger LOG = System.getLogger(AzureSource.class.getName());
    private static final HttpHeaderName MS_VERSION = HttpHeaderName.fromString("x-ms-version");
    private static final HttpHeaderName MS_RANGE = HttpHeaderName.fromString("x-ms-range");
    private static final HttpHeaderName ERROR_CODE = HttpHeaderName.fromString("x-ms-error-code");

    private final AzureLocation location;
    private final BlobPipeline pipeline;
    private final String url;

    private AzureSource(BlobPipeline pipeline, String url, AzureLocation location, RemotePolicy policy) {
        super(location.name(), policy, location.versionId() == null ? null
                : new AzureVersion(null, location.versionId()));
        this.location = location;
        this.pipeline = pipeline;
        this.url = url;
    }

    /**
     * Opens a source over one blob with {@link RemotePolicy#DEFAULT}. No request is made until the first read or
     * {@link #size()}.
     *
     * @param client   the client whose account, credentials and HTTP client are used; it stays usable after the
     *                 source is closed
     * @param location the blob; an account it names must be the client's
     * @return the source
     * @throws dev.safetensors.InvalidLocationException ({@link ErrorCode#INVALID_SOURCE}) if the location names
     *                                                  another account than the client's
     */
    public static AzureSource open(BlobServiceClient client, AzureLocation location)
            throws dev.safetensors.InvalidLocationException {
        return open(client, location, RemotePolicy.DEFAULT);
    }

    /**
     * @param client   the client whose account, credentials and HTTP client are used
     * @param location the blob; an account it names must be the client's
     * @param policy   retries and deadlines
     * @return a source over the blob; no request is made yet
     * @throws dev.safetensors.InvalidLocationException ({@link ErrorCode#INVALID_SOURCE}) if the location names
     *                                                  another account than the client's
     */
    public static AzureSource open(BlobServiceClient client, AzureLocation location, RemotePolicy policy)
            throws dev.safetensors.InvalidLocationException {
        return open(client, BlobPipeline.of(Objects.requireNonNull(client, "client")), location, policy);
    }

    static AzureSource open(BlobServiceClient client, BlobPipeline pipeline, AzureLocation location,
                            RemotePolicy policy) throws dev.safetensors.InvalidLocationException {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(policy, "policy");
        AccountClients.requireSameAccount(client, location);
        BlobClient blob = client.getBlobContainerClient(location.container())
                .getBlobClient(location.blob(), location.snapshot());
        if (location.versionId() != null) {
            blob = blob.getVersionClient(location.versionId());
        }
        return new AzureSource(pipeline, blob.getBlobUrl(), location, policy);
    }

    /** @return the blob this source reads */
    public AzureLocation location() {
        return location;
    }

    /**
     * @return the ETag of the pinned blob once an answer was seen, and its version: the version id once pinned (or
     *         as asked before that), else the snapshot the location names (a snapshot is a version of the blob that
     *         never changes)
     */
    @Override
    public SourceIdentity identity() {
        AzureVersion known = version();
        String versionId = known != null && known.versionId() != null ? known.versionId() : null;
        return new SourceIdentity(known == null ? null : known.etag(),
                versionId != null ? versionId : location.snapshot(), null, null, null);
    }

    @Override
    protected RangeAnswer send(long position, long length, AzureVersion version) throws IOException {
        String range = "bytes=" + position + "-" + (position + length - 1);
        HttpRequest request = new HttpRequest(HttpMethod.GET, url);
        // The shared key signature covers Content-Length; without the header it would sign "null".
        request.setHeader(HttpHeaderName.CONTENT_LENGTH, "0");
        request.setHeader(MS_VERSION, pipeline.serviceVersion());
        request.setHeader(MS_RANGE, range);
        if (version != null && version.etag() != null) {
            request.setHeader(HttpHeaderName.IF_MATCH, version.etag());
        }
        counter().exchange();
        HttpResponse response;
        try {
            response = pipeline.send(request, name(), "GET " + range);
        } catch (IOException e) {
            log(range, "failed: " + e);
            throw e;
        }
        log(range, response.getStatusCode() + " " + String.valueOf(response.getHeaderValue(HttpHeaderName.CONTENT_RANGE))
                + " (" + response.getHeaderValue(HttpHeaderName.CONTENT_LENGTH) + " bytes"
                + errorCode(response.getHeaderValue(ERROR_CODE)) + ")");
        UnaryOperator<String> headers = h -> response.getHeaderValue(HttpHeaderName.fromString(h));
        long emptyAtEnd = emptyRangeAtTheEnd(response.getStatusCode(), headers.apply("Content-Range"));
        if (emptyAtEnd >= 0) {
            response.close();
            return new RangeAnswer(416, h -> h.equalsIgnoreCase("Content-Range") ? "bytes */" + emptyAtEnd
                    : headers.apply(h), InputStream.nullInputStream(), () -> { });
        }
        InputStream body = response.getBodyAsBinaryData().toStream();
        return new RangeAnswer(response.getStatusCode(), headers,
                body == null ? InputStream.nullInputStream() : body, response::close);
    }

    /**
     * Azurite answers a range that starts at the end of the blob with 206 and {@code Content-Range: bytes
     * P-(P-1)/P} (and an empty blob with {@code bytes 0--1/0}), where Azure answers 416 with {@code bytes *}{@code /P}.
     * Both say the same thing, "no bytes at P, the blob has P", so the first is read as the second.
     *
     * @return the blob's size if the answer is such an empty range at the end, otherwise -1
     */
    static long emptyRangeAtTheEnd(int status, String contentRange) {
        if (status != 206 || contentRange == null) {
            return -1;
        }
        Matcher m = EMPTY_AT_END.matcher(contentRange.trim());
        if (!m.matches() || m.group(1).length() > 18 || m.group(3).length() > 18) {
            return -1;
        }
        long start = Long.parseLong(m.group(1));
        long end = Long.parseLong(m.group(2));
        long total = Long.parseLong(m.group(3));
        return start == total && end == start - 1 ? total : -1;
    }

    private static final Pattern EMPTY_AT_END = Pattern.compile("bytes (\\d+)-(-?\\d{1,18})/(\\d+)");

    @Override
    protected AzureVersion identify(RangeAnswer answer, AzureVersion version) throws IOException {
        String etag = answer.header("ETag");
        if (etag == null || etag.isBlank()) {
            throw new StorageException(ErrorCode.IO_ERROR, name(), "the answer carries no ETag, so the blob cannot"
                    + " be pinned");
        }
        etag = SourceNames.clip(etag.trim());
        String reported = answer.header("x-ms-version-id");
        if (version != null && version.etag() != null && !version.etag().equals(etag)) {
            throw new SourceChangedException(name(), "ETag " + version.etag() + " was pinned but the answer is for"
                    + " ETag " + etag);
        }
        if (version != null && version.versionId() != null && reported != null
                && !version.versionId().equals(reported.trim())) {
            throw new SourceChangedException(name(), "version " + version.versionId() + " was asked for but the"
                    + " answer is for version " + SourceNames.clip(reported.trim()));
        }
        if (version != null && version.etag() != null) {
            return version;
        }
        String versionId = version != null && version.versionId() != null ? version.versionId()
                : reported == null || reported.isBlank() ? null : SourceNames.clip(reported.trim());
        return new AzureVersion(etag, versionId);
    }

    @Override
    protected IOException statusFailure(RangeAnswer answer, AzureVersion version, int attempts) {
        int status = answer.status();
        String said = errorCode(answer.header("x-ms-error-code"));
        switch (status) {
            case 404, 410 -> {
                if (knownSize() >= 0) {
                    return new SourceChangedException(name(), "the blob was read before but is gone now (HTTP "
                            + status + said + ")");
                }
                return new SourceNotFoundException(name(), "no such blob or container (HTTP " + status + said + ")");
            }
            case 401, 403 -> {
                return new SourceAccessDeniedException(name(), "HTTP " + status + said + ": the credentials in use"
                        + " may not read this blob (a SAS with read permission, the account key, or a role such as"
                        + " Storage Blob Data Reader is needed)");
            }
            case 412 -> {
                return new SourceChangedException(name(), "the blob changed since it was first read: ETag "
                        + (version == null ? "?" : version) + " no longer matches (HTTP 412" + said + ")");
            }
            default -> {
                IOException failure = super.statusFailure(answer, version, attempts);
                if (said.isEmpty() || !(failure instanceof StorageException storage)) {
                    return failure;
                }
                return new StorageException(storage.code(), name(), "the storage answered HTTP " + status + said
                        + " after " + attempts + " attempt" + (attempts == 1 ? "" : "s"));
            }
        }
    }

    private static String errorCode(String code) {
        return code == null || code.isBlank() ? "" : " " + SourceNames.clip(code.trim());
    }

    private void log(String range, String outcome) {
        LOG.log(System.Logger.Level.DEBUG, () -> "GET " + name() + " " + range + " -> " + outcome);
    }

    @Override
    public String toString() {
        return "AzureSource[" + name() + "]";
    }
}
