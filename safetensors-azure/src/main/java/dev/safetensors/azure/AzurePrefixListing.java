package dev.safetensors.azure;

import com.azure.core.exception.ClientAuthenticationException;
import com.azure.core.exception.HttpResponseException;
import com.azure.core.http.rest.PagedResponse;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobItemProperties;
import com.azure.storage.blob.models.ListBlobsOptions;
import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.BucketPrefix;
import dev.safetensors.spi.PagedListing;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.RetriedRequest;

import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An Azure Blob Storage prefix listed with List Blobs, one request per page of up to {@link ListOptions#pageSize()}
 * blobs (Azure caps it at {@value #AZURE_MAX_RESULTS}), following continuation markers; one level uses the {@code /}
 * delimiter and reports blob prefixes as {@link ListEntry.Kind#FOLDER}. Needs the container's list permission (the
 * role "Storage Blob Data Reader", or a SAS with {@code l}). Every name is checked to lie under the prefix asked;
 * the version is the blob's ETag. Requests go through the retry-free pipeline every source of the account uses.
 */
final class AzurePrefixListing extends PagedListing {
    /** Azure's largest page ({@code maxresults}). */
    static final int AZURE_MAX_RESULTS = 5000;
    private static final String DELIMITER = "/";
    private static final String ERROR_CODE = "x-ms-error-code";
    /** A SAS signature, as it would appear in a URL an SDK failure quotes. */
    private static final Pattern SIGNATURE = Pattern.compile("(?i)sig=[^&\\s'\"]*");

    private final BlobContainerClient container;
    private final BucketPrefix at;

    private AzurePrefixListing(BlobContainerClient container, BucketPrefix at, String name, ListOptions options,
                               RemotePolicy policy) {
        super(name, options, Math.min(options.pageSize(), AZURE_MAX_RESULTS), policy);
        this.container = container;
        this.at = at;
    }

    /**
     * @param container the container's client, on a pipeline without retries
     * @param uri       the prefix as asked, whose scheme and authority begin every entry's location (such as
     *                  {@code az://models} or {@code abfss://models@account.dfs.core.windows.net})
     * @param where     the prefix ({@link AzureLocation#parsePrefix})
     * @param options   recursion, page size, bounds
     * @param policy    the retries of every page
     * @return the listing, before its first request
     */
    static AzurePrefixListing of(BlobContainerClient container, URI uri, AzureLocation where, ListOptions options,
                                 RemotePolicy policy) {
        return new AzurePrefixListing(container, new BucketPrefix(where.scheme(), uri.getRawAuthority(),
                where.blob()), where.name(), options, policy);
    }

    @Override
    protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
        ListBlobsOptions asked = new ListBlobsOptions().setMaxResultsPerPage(Math.min(options().pageSize(),
                AZURE_MAX_RESULTS));
        if (!at.prefix().isEmpty()) {
            asked.setPrefix(at.prefix());
        }
        counter().exchange();
        PagedResponse<BlobItem> page;
        try {
            Iterator<PagedResponse<BlobItem>> pages = (options().recursive()
                    ? container.listBlobs(asked, token, null)
                    : container.listBlobsByHierarchy(DELIMITER, asked, null)).iterableByPage(token).iterator();
            if (!pages.hasNext()) {
                return RetriedRequest.Outcome.answer(new Page(List.of(), null));
            }
            page = pages.next();
        } catch (ClientAuthenticationException e) {
            throw new SourceAccessDeniedException(name(), "no Entra ID token could be had for the storage account: "
                    + firstLine(e));
        } catch (HttpResponseException e) {
            int status = e.getResponse() == null ? 0 : e.getResponse().getStatusCode();
            if (status < 300) {
                throw new StorageException(ErrorCode.INVALID_LISTING, name(),
                        "the answer cannot be read as a List Blobs page: " + firstLine(e), e);
            }
            return answered(status, e.getResponse().getHeaderValue("Retry-After"), e);
        } catch (RuntimeException e) {
            // the SDK's XML reader and its reactive core fail unchecked, for an answer that is not a List Blobs
            // page and for a connection that broke alike: the cause chain tells which
            if (unreadableAnswer(e)) {
                throw new StorageException(ErrorCode.INVALID_LISTING, name(),
                        "the answer cannot be read as a List Blobs page: " + firstLine(e), e);
            }
            throw new StorageException(ErrorCode.NETWORK, name(), "the listing request failed: " + firstLine(e), e);
        }
        List<BlobItem> items = page.getValue() == null ? List.of() : page.getValue();
        List<ListEntry> entries = new ArrayList<>(items.size());
        for (BlobItem item : items) {
            String blob = item.getName();
            if (blob != null && blob.equals(at.prefix())) {
                continue; // the prefix's own "folder marker", which Storage Explorer and ADLS Gen2 create
            }
            if (!at.holds(blob)) {
                throw invalid("the listing names '" + SourceNames.clip(String.valueOf(blob))
                        + "', outside the prefix asked");
            }
            // List Blobs returns names in alphabetical (UTF-8 binary) order ("Blobs are listed in alphabetical order
            // in the response body", Azure Blob REST API, List Blobs), blobs and prefixes each: so each name is
            // checked to come after the one before, and a name listed twice ends the listing
            if (Boolean.TRUE.equals(item.isPrefix())) {
                if (inOrderPrefix(blob)) {
                    entries.add(at.folderEntry(blob));
                }
                continue;
            }
            inOrder(blob);
            if (dotSegment(blob)) {
                // the service resolves . and .. segments, escaped or not: no request names this blob exactly, and
                // asking for it would read the blob it resolves to
                entries.add(ListEntry.special(at.locationOf(blob), ListEntry.Kind.INVALID_NAME));
                continue;
            }
            if (!blob.endsWith("/") && !Boolean.TRUE.equals(item.isDeleted())) {
                BlobItemProperties p = item.getProperties();
                Long size = p == null ? null : p.getContentLength();
                Instant modified = p == null || p.getLastModified() == null ? null : p.getLastModified().toInstant();
                String etag = p == null ? null : p.getETag();
                entries.add(at.fileEntry(blob, size == null ? -1 : size, etag, modified));
            }
        }
        return RetriedRequest.Outcome.answer(new Page(entries, page.getContinuationToken()));
    }

    /** @return whether a segment of the name is {@code .} or {@code ..} */
    static boolean dotSegment(String blob) {
        for (String segment : blob.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the service's error code ({@code x-ms-error-code}: {@code ContainerNotFound}, {@code
     *         AuthorizationPermissionMismatch}...) and the host that answered, as {@code " (CODE from HOST:PORT)"}:
     *         the status alone does not tell a missing container from a missing account or a mistyped endpoint
     */
    @Override
    protected String toldBy(Throwable cause) {
        if (!(cause instanceof HttpResponseException e) || e.getResponse() == null) {
            return "";
        }
        String code = e.getResponse().getHeaderValue(ERROR_CODE);
        code = code == null || code.isBlank() ? "" : SourceNames.clip(code.trim());
        java.net.URL url = e.getResponse().getRequest() == null ? null : e.getResponse().getRequest().getUrl();
        // only the host and port: the URL's query may hold a SAS signature
        String from = url == null ? "" : "from " + SourceNames.clip(url.getHost()) + ":"
                + (url.getPort() >= 0 ? url.getPort() : url.getDefaultPort());
        if (code.isEmpty() && from.isEmpty()) {
            return "";
        }
        return " (" + code + (code.isEmpty() || from.isEmpty() ? "" : " ") + from + ")";
    }

    /** @return whether the failure comes from reading the answer's XML (or another format the SDK tried) */
    private static boolean unreadableAnswer(Throwable e) {
        int depth = 0;
        for (Throwable t = e; t != null && depth < 16; t = t.getCause(), depth++) {
            String type = t.getClass().getName();
            if (type.contains(".xml.") || type.contains("XML") || type.contains("Json")) {
                return true;
            }
        }
        return false;
    }

    /** @return the first line of the failure's message, a SAS signature in it replaced, clipped for messages */
    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return SourceNames.clip(SIGNATURE.matcher(nl < 0 ? m : m.substring(0, nl)).replaceAll("sig=REDACTED"));
    }
}
