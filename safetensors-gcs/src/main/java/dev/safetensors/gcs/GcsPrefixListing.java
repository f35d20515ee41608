package dev.safetensors.gcs;

import com.google.api.gax.paging.Page;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.spi.BucketPrefix;
import dev.safetensors.spi.BucketListing;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.RetriedRequest;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A Cloud Storage prefix listed with {@code objects.list}, one request per page of up to
 * {@link ListOptions#pageSize()} objects (GCS caps it at 1,000), following page tokens; one level uses the
 * {@code /} delimiter and reports prefixes as {@link ListEntry.Kind#FOLDER}. Needs the {@code storage.objects.list}
 * permission. Every name is checked to lie under the prefix asked; the version is the object's generation.
 */
final class GcsPrefixListing extends BucketListing {
    /** Cloud Storage's largest page. */
    static final int GCS_MAX_RESULTS = 1000;

    private final Storage storage;

    GcsPrefixListing(Storage storage, Location where, ListOptions options, RemotePolicy policy) throws IOException {
        super(where, options, GCS_MAX_RESULTS, policy);
        this.storage = storage;
    }

    @Override
    protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
        BucketPrefix at = at();
        List<Storage.BlobListOption> asked = new ArrayList<>();
        asked.add(Storage.BlobListOption.pageSize(pageSize()));
        if (!at.prefix().isEmpty()) {
            asked.add(Storage.BlobListOption.prefix(at.prefix()));
        }
        if (!options().recursive()) {
            asked.add(Storage.BlobListOption.currentDirectory());
        }
        if (token != null) {
            asked.add(Storage.BlobListOption.pageToken(token));
        }
        counter().exchange();
        com.google.api.gax.paging.Page<Blob> page;
        try {
            page = storage.list(at.bucket(), asked.toArray(Storage.BlobListOption[]::new));
        } catch (StorageException e) {
            if (e.getCode() > 0) {
                return answered(e.getCode(), null, e);
            }
            throw new dev.safetensors.StorageException(ErrorCode.NETWORK, name(), "the listing request failed: "
                    + dev.safetensors.spi.SourceNames.clip(String.valueOf(e.getMessage())), e);
        }
        List<ListEntry> entries = new ArrayList<>();
        // objects.list returns objects "ordered in the list lexicographically by name" (Cloud Storage docs, List
        // objects), items and prefixes each: so each name is checked to come after the one before, and a name
        // listed twice ends the listing
        for (Blob b : page.getValues()) {
            String object = b.getName();
            if (b.isDirectory()) {
                if (listedPrefix(object)) {
                    entries.add(at.folderEntry(object));
                }
                continue;
            }
            if (!listed(object, "the object")) {
                continue;
            }
            if (object.equals(".") || object.equals("..")) {
                // no object may be named so (Cloud Storage's naming rules), and its escaped name, alone in the
                // request path, would be a dot segment that HTTP resolves
                entries.add(ListEntry.special(at.locationOf(object), ListEntry.Kind.INVALID_NAME));
            } else if (!object.endsWith("/")) {
                Long size = b.getSize();
                Long generation = b.getGeneration();
                Instant updated = b.getUpdateTimeOffsetDateTime() == null ? null
                        : b.getUpdateTimeOffsetDateTime().toInstant();
                entries.add(at.fileEntry(object, size == null ? -1 : size,
                        generation == null ? null : generation.toString(), updated));
            }
        }
        return RetriedRequest.Outcome.answer(new Page(entries, page.getNextPageToken()));
    }
}
