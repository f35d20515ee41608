package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.PagedListing;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.RetriedRequest;
import dev.safetensors.spi.StatusMapping;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A folder of a Hub repository ({@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION]/FOLDER/}, models, datasets
 * and spaces alike) listed with the tree API, {@code GET /api/{models|datasets|spaces}/NS/REPO/tree/REV[/PATH]},
 * one request per page, following the {@code Link: <...>; rel="next"} header the Hub pages with (only to the Hub's
 * own origin). Files are pinned to the commit the first answer names ({@code X-Repo-Commit}); their version is the
 * LFS SHA-256 where the Hub reports one, else the git blob id. Subfolders are {@link ListEntry.Kind#FOLDER} entries.
 */
final class HubTreeListing extends PagedListing {
    /** The most entries one Hub page may hold: the Hub pages trees by 1,000 (50 with expansions) today. */
    static final int HUB_MAX_PAGE = 10_000;
    private static final Pattern NEXT = Pattern.compile("<([^>]+)>\\s*;\\s*rel=\"?next\"?");

    private final HttpTransport transport;
    private final HubPath at;
    private final URI first;
    private final URI endpoint;
    private String commit;

    private HubTreeListing(HttpTransport transport, HubPath at, ListOptions options) {
        super(SourceNames.redact(at.toUri()), options, HUB_MAX_PAGE, transport.settings().remotePolicy());
        this.transport = transport;
        this.at = at;
        this.endpoint = URI.create(transport.settings().hubEndpoint().toString());
        String path = at.path().isEmpty() ? "" : "/" + HubPath.encode(stripSlash(at.path()), true);
        this.first = URI.create(endpoint + "/api/" + at.type().plural + "/" + at.namespace() + "/" + at.name()
                + "/tree/" + HubPath.encode(at.revision(), false) + path
                + (options.recursive() ? "?recursive=true" : ""));
    }

    /**
     * @param transport the Hub client
     * @param location  an {@code hf://} folder
     * @param options   recursion and bounds (the Hub chooses its page size)
     * @return the listing, before its first request
     * @throws IOException if the location is malformed
     */
    static HubTreeListing of(HttpTransport transport, URI location, ListOptions options) throws IOException {
        // a folder is written with a trailing slash, which the file syntax of HubPath refuses as an empty segment
        String text = location.toString();
        while (text.endsWith("/") && !text.endsWith("://")) {
            text = text.substring(0, text.length() - 1);
        }
        return new HubTreeListing(transport, HubPath.parse(URI.create(text)), options);
    }

    private static String stripSlash(String path) {
        String p = path;
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    @Override
    protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
        URI url = token == null ? first : URI.create(token);
        FinalResponse answer = transport.get(name(), url, null, null, counter());
        List<HubListingJson.TreeItem> items;
        String next;
        try (InputStream body = answer.body()) {
            int status = answer.status();
            ErrorCode code = StatusMapping.code(status);
            if (status != 200 && (code == ErrorCode.NOT_FOUND || code == ErrorCode.ACCESS_DENIED)) {
                throw StatusMapping.failure(status, name(), "the tree listing answered " + status
                        + (code == ErrorCode.NOT_FOUND ? ": no such repository, revision or folder"
                        : ": access denied; a token may be needed (HF_TOKEN)"), null);
            }
            if (status != 200) {
                return answered(status, answer.header("Retry-After"), null);
            }
            byte[] bytes = body.readNBytes(HubRepository.MAX_LISTING_BYTES + 1);
            if (bytes.length > HubRepository.MAX_LISTING_BYTES) {
                throw invalid("a page of the tree has more than " + HubRepository.MAX_LISTING_BYTES + " bytes");
            }
            counter().bytes(bytes.length);
            try {
                items = HubListingJson.parseTree(name(), bytes);
            } catch (StorageException e) {
                throw invalid("a page of the tree is unreadable: " + e.getMessage());
            }
            next = nextLink(answer.header("Link"));
            if (commit == null) {
                commit = answer.repoCommit() != null && !answer.repoCommit().isEmpty() ? answer.repoCommit()
                        : at.revision();
            }
        }
        String folder = stripSlash(at.path());
        String under = folder.isEmpty() ? "" : folder + "/";
        HubPath pinned = at.at(commit);
        List<ListEntry> entries = new ArrayList<>(items.size());
        for (HubListingJson.TreeItem item : items) {
            String path = item.path();
            String type = item.type();
            if (!path.startsWith(under) || path.length() == under.length()) {
                throw invalid("the tree names '" + SourceNames.clip(path) + "', outside the folder asked");
            }
            Location location = Location.of(pinned.file(path).toUri());
            if (type.equals("directory")) {
                entries.add(ListEntry.special(Location.parse(location.text() + "/"), ListEntry.Kind.FOLDER));
            } else if (type.equals("file")) {
                entries.add(ListEntry.file(location, item.size(), item.version(), null));
            } else {
                throw invalid("an entry of the tree has the unknown type '" + SourceNames.clip(type) + "'");
            }
        }
        return RetriedRequest.Outcome.answer(new Page(entries, next));
    }

    /** @return the next page's URL from a {@code Link} header, checked to stay on the Hub's origin */
    private String nextLink(String link) throws StorageException {
        if (link == null) {
            return null;
        }
        Matcher m = NEXT.matcher(link);
        if (!m.find()) {
            return null;
        }
        URI next;
        try {
            next = endpoint.resolve(m.group(1));
        } catch (IllegalArgumentException e) {
            throw invalid("the next page's link is not a URL");
        }
        if (!Origin.of(next).equals(Origin.of(endpoint))) {
            throw new StorageException(ErrorCode.INVALID_LISTING, name(), "the next page's link leaves the Hub ("
                    + SourceNames.redact(next) + "): not followed, the token would go with it");
        }
        return next.toString();
    }
}
