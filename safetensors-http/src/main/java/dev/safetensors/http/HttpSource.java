package dev.safetensors.http;

import dev.safetensors.SourceIdentity;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.spi.AbstractRangedSource;
import dev.safetensors.spi.RangeAnswer;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.StatusMapping;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;

/**
 * A {@link dev.safetensors.RandomAccessSource} over an {@code http(s)://} URL or a Hugging Face Hub file
 * ({@code hf://}), one ranged GET per {@link #read} and per {@link #openRange}. Verification, end of object, retries
 * and deadlines are those of {@link AbstractRangedSource}; this class adds what is HTTP's own:
 *
 * <ul>
 *   <li>No content coding: an encoded answer's bytes are not the object's ({@link RangeNotHonouredException}).</li>
 *   <li>The first answer pins the strong {@code ETag} (sent back as {@code If-Match} to the origin that gave it, and
 *       compared on every answer in case the server ignores it), the Hub's {@code X-Repo-Commit} (an {@code hf://}
 *       source then resolves every later read against that commit instead of the moving branch) and
 *       {@code X-Linked-Etag}. A contradiction is a {@link dev.safetensors.SourceChangedException}.</li>
 *   <li>A 404 of a Hub file names repository, revision and path; a 401 or 403 says whether a token was sent; the
 *       server's {@code X-Error-Message} is quoted, clipped.</li>
 * </ul>
 *
 * <p>{@link #statistics()} counts one request per {@code read}, {@code openRange} and size probe, whatever redirect
 * hops and retries it took (the Hub answers each read with a redirect to its CDN: two HTTP exchanges; each exchange is
 * logged at {@code DEBUG} on the {@code dev.safetensors.http} logger). {@link #name()} is the URL without user
 * information, query or fragment, so signed URLs never reach messages or logs.
 *
 * <p>Thread-safe. Channels returned by {@link #openRange} are for one thread.
 */
public final class HttpSource extends AbstractRangedSource<HttpVersion> {
    private final HttpTransport transport;
    private final URI url;
    private final HubPath hub;

    private HttpSource(HttpTransport transport, URI url, HubPath hub, String name) {
        super(name, transport.settings().remotePolicy(), null);
        this.transport = transport;
        this.url = url;
        this.hub = hub;
    }

    /**
     * @param transport the shared transport
     * @param uri       an {@code http}, {@code https} or {@code hf} URI naming one file
     * @throws IOException an {@link InvalidLocationException} ({@link ErrorCode#INVALID_SOURCE}) if the URI is
     *                     malformed, carries credentials, or names a Hub repository instead of a file
     */
    static HttpSource open(HttpTransport transport, URI uri) throws IOException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("hf")) {
            HubPath path = HubPath.parse(uri);
            if (path.path().isEmpty()) {
                throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, SourceNames.redact(uri)
                        + ": names a Hub repository, not a file; use HubRepository to find the files it holds");
            }
            return new HttpSource(transport, null, path, SourceNames.redact(uri));
        }
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.isOpaque() || uri.getHost() == null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, SourceNames.redact(uri)
                    + ": not an absolute http(s) URL with a host");
        }
        if (uri.getPort() > 65535) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, SourceNames.redact(uri)
                    + ": the port is out of range (1 to 65535)");
        }
        if (uri.getRawUserInfo() != null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, SourceNames.redact(uri)
                    + ": credentials in the URL are not supported");
        }
        return new HttpSource(transport, uri, null, SourceNames.redact(uri));
    }

    /** @return a source over a Hub file */
    static HttpSource open(HttpTransport transport, HubPath file) {
        return new HttpSource(transport, null, file, SourceNames.redact(file.toUri()));
    }

    /**
     * @return the pinned strong ETag, the repository ({@code OWNER/REPO} for a Hub file), the revision (the commit
     *         the Hub resolved to) and the digest the Hub reported in {@code X-Linked-Etag} (not one computed here,
     *         and only when it is a SHA-256), each only once known
     */
    @Override
    public SourceIdentity identity() {
        HttpVersion id = current();
        return new SourceIdentity(id.etag() == null ? null : SourceNames.clip(id.etag().etag()), null,
                hub == null ? null : hub.repository(), id.commit() == null ? null : SourceNames.clip(id.commit()),
                id.linkedEtag());
    }

    /** @return the Hub commit as the server sent it, or {@code null} before any answer reported one */
    String pinnedCommit() {
        return current().commit();
    }

    private HttpVersion current() {
        HttpVersion v = version();
        return v == null ? HttpVersion.UNKNOWN : v;
    }

    @Override
    protected RangeAnswer send(long position, long length, HttpVersion version) throws IOException {
        HttpVersion id = version == null ? HttpVersion.UNKNOWN : version;
        String range = "bytes=" + position + "-" + (position + length - 1);
        return new HttpAnswer(transport.get(name(), target(id), range, id.etag(), counter()));
    }

    @Override
    protected HttpVersion identify(RangeAnswer answer, HttpVersion version) throws IOException {
        FinalResponse response = ((HttpAnswer) answer).response();
        String coding = answer.header("Content-Encoding");
        if (coding != null && !coding.trim().equalsIgnoreCase("identity")) {
            throw new RangeNotHonouredException(name(), "the answer is encoded (" + SourceNames.clip(coding)
                    + "), so its bytes are not the object's");
        }
        String etag = answer.header("ETag");
        ETagPin strong = etag != null && etag.startsWith("\"") ? new ETagPin(etag, Origin.of(response.url())) : null;
        HttpVersion id = version == null ? HttpVersion.UNKNOWN : version;
        return id.merge(name(), strong, response.repoCommit(), response.linkedEtag());
    }

    @Override
    protected IOException statusFailure(RangeAnswer answer, HttpVersion version, int attempts) {
        FinalResponse response = ((HttpAnswer) answer).response();
        int status = answer.status();
        String serverSays = answer.header("X-Error-Message") == null ? ""
                : "; the server says: " + SourceNames.clip(answer.header("X-Error-Message"));
        String where = "GET " + SourceNames.redact(response.url()) + " answered " + status;
        ErrorCode code = StatusMapping.code(status);
        if (code == ErrorCode.SOURCE_CHANGED) {
            return super.statusFailure(answer, version, attempts);
        }
        String retryAfter = answer.header("Retry-After") == null ? ""
                : " (Retry-After: " + SourceNames.clip(answer.header("Retry-After")) + ")";
        return StatusMapping.failure(status, name(), switch (code) {
            case NOT_FOUND -> {
                String commit = version == null ? null : version.commit();
                yield (hub == null ? where
                        : "not found on the Hub: repository " + hub.repository() + ", revision " + hub.revision()
                        + (commit == null || commit.equals(hub.revision()) ? "" : " (commit "
                        + SourceNames.clip(commit) + ")") + ", path " + hub.path() + " (" + where + ")") + serverSays;
            }
            case ACCESS_DENIED -> where + ": access denied; " + (transport.settings().hasToken()
                    ? "the token was refused or does not grant access (it is sent only to the Hub endpoint over https"
                    + " or loopback)"
                    : "a token may be needed: set HF_TOKEN or configure one in HttpSettings") + serverSays;
            default -> where + retryAfter + " after " + attempts + " attempt" + (attempts == 1 ? "" : "s")
                    + serverSays;
        }, null);
    }

    /** A Hub file resolves against the pinned commit once one is known, so the moving branch cannot change it. */
    private URI target(HttpVersion id) {
        if (hub == null) {
            return url;
        }
        HubPath at = id.commit() == null ? hub : hub.at(id.commit());
        return at.resolveUrl(transport.settings().hubEndpoint());
    }
}
