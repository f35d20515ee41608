package dev.safetensors.s3;

import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.spi.BucketPrefix;
import dev.safetensors.spi.BucketListing;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.RetriedRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * An S3 prefix listed with {@code ListObjectsV2}, one request per page of up to {@link ListOptions#pageSize()} keys
 * (S3 caps it at 1,000), following continuation tokens; one level uses the {@code /} delimiter and reports common
 * prefixes as {@link ListEntry.Kind#FOLDER}. Needs the {@code s3:ListBucket} permission. Every key is checked to lie
 * under the prefix asked.
 */
final class S3PrefixListing extends BucketListing {
    /** S3's largest page. */
    static final int S3_MAX_KEYS = 1000;

    private final S3Client client;
    /** The host the current page's request went to, for its failure's message. */
    private AskedHost asked;

    /**
     * The listing, before its first request.
     *
     * @param client  the client
     * @param where   {@code s3://bucket[/prefix]}
     * @param options recursion, page size, bounds
     * @param policy  the retries of every page
     * @throws IOException {@code INVALID_SOURCE} if the URI names no bucket
     */
    S3PrefixListing(S3Client client, Location where, ListOptions options, RemotePolicy policy) throws IOException {
        super(where, options, S3_MAX_KEYS, policy);
        this.client = client;
    }

    @Override
    protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
        BucketPrefix at = at();
        ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(at.bucket()).prefix(at.prefix())
                .maxKeys(pageSize()).continuationToken(token);
        if (!options().recursive()) {
            request.delimiter("/");
        }
        asked = new AskedHost();
        request.overrideConfiguration(c -> c.addPlugin(asked.plugin()));
        ListObjectsV2Response response;
        counter().exchange();
        try {
            response = client.listObjectsV2(request.build());
        } catch (SdkServiceException e) {
            return answered(e.statusCode(), SdkFailureTranslator.retryAfter(e), e);
        } catch (SdkClientException e) {
            throw SdkFailureTranslator.noAnswer(name(), "ListObjectsV2", e, asked.endpoint());
        }
        List<ListEntry> entries = new ArrayList<>(response.contents().size() + response.commonPrefixes().size());
        for (S3Object o : response.contents()) {
            String key = o.key();
            if (!listed(key, "the key")) {
                continue;
            }
            if (key.endsWith("/")) {
                continue; // a zero-byte "folder marker" some tools create, not an object a user wrote
            }
            Long size = o.size();
            entries.add(at.fileEntry(key, size == null ? -1 : size, o.eTag(), o.lastModified()));
        }
        for (CommonPrefix p : response.commonPrefixes()) {
            String sub = p.prefix();
            if (listedPrefix(sub)) {
                entries.add(at.folderEntry(sub));
            }
        }
        boolean truncated = Boolean.TRUE.equals(response.isTruncated());
        String next = response.nextContinuationToken();
        if (truncated && (next == null || next.isEmpty())) {
            throw invalid("a truncated page carries no continuation token");
        }
        return RetriedRequest.Outcome.answer(new Page(entries, truncated ? next : null));
    }

    /**
     * ListObjectsV2 returns keys (and, apart, common prefixes) in ascending UTF-8 binary order of their names in
     * general purpose buckets (S3 API reference, ListObjectsV2), so each key is checked to come after the one
     * before. Directory buckets (names ending {@code --x-s3}) do not list in lexicographic order (the same reference):
     * there the token, page, empty-page and time bounds still hold.
     */
    @Override
    protected boolean listsInOrder() {
        return !at().bucket().endsWith("--x-s3");
    }

    /** @return S3's error code and the host that answered ({@code " (NoSuchBucket from HOST:PORT)"}) */
    @Override
    protected String toldBy(Throwable cause) {
        return cause instanceof SdkServiceException e
                ? SdkFailureTranslator.told(e, asked == null ? null : asked.endpoint()) : "";
    }
}
