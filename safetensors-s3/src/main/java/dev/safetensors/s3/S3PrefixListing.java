package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.spi.PagedListing;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * An S3 prefix listed with {@code ListObjectsV2}, one request per page of up to {@link ListOptions#pageSize()} keys
 * (S3 caps it at 1,000), following continuation tokens; one level uses the {@code /} delimiter and reports common
 * prefixes as {@link ListEntry.Kind#FOLDER}. Needs the {@code s3:ListBucket} permission. Every key is checked to lie
 * under the prefix asked.
 */
final class S3PrefixListing extends PagedListing {
    /** S3's largest page. */
    static final int S3_MAX_KEYS = 1000;

    private final S3Client client;
    private final String bucket;
    private final String prefix;

    private S3PrefixListing(S3Client client, String bucket, String prefix, ListOptions options) {
        super("s3://" + bucket + "/" + prefix, options, Math.min(options.pageSize(), S3_MAX_KEYS));
        this.client = client;
        this.bucket = bucket;
        this.prefix = prefix;
    }

    /**
     * @param client  the client
     * @param where   {@code s3://bucket[/prefix]}
     * @param options recursion, page size, bounds
     * @return the listing, before its first request
     * @throws InvalidLocationException ({@link ErrorCode#INVALID_SOURCE}) if the URI names no bucket
     */
    static S3PrefixListing of(S3Client client, Location where, ListOptions options) throws IOException {
        URI uri = where.uri().orElseThrow(() -> new InvalidLocationException(ErrorCode.INVALID_SOURCE,
                where.display() + ": not a valid s3:// URI"));
        String bucket = uri.getAuthority();
        if (bucket == null || bucket.isEmpty()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, where.display()
                    + ": an s3:// prefix names a bucket: s3://BUCKET/PREFIX/");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String prefix = path.startsWith("/") ? path.substring(1) : path;
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        return new S3PrefixListing(client, bucket, prefix, options);
    }

    @Override
    protected Page fetch(String token) throws IOException {
        ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix)
                .maxKeys(Math.min(options().pageSize(), S3_MAX_KEYS)).continuationToken(token);
        if (!options().recursive()) {
            request.delimiter("/");
        }
        ListObjectsV2Response response;
        counter().exchange();
        try {
            response = client.listObjectsV2(request.build());
        } catch (SdkServiceException e) {
            IOException failure = statusFailure(e.statusCode());
            failure.initCause(e);
            throw failure;
        } catch (SdkClientException e) {
            throw SdkFailureTranslator.noAnswer(name(), "ListObjectsV2", e);
        }
        List<ListEntry> entries = new ArrayList<>(response.contents().size() + response.commonPrefixes().size());
        for (S3Object o : response.contents()) {
            String key = o.key();
            if (key == null || !key.startsWith(prefix)) {
                throw invalid("the listing names the key '" + key + "', outside the prefix asked");
            }
            if (key.endsWith("/")) {
                continue; // a zero-byte "folder marker" some tools create, not an object a user wrote
            }
            Long size = o.size();
            entries.add(ListEntry.file(location(key), size == null ? -1 : size, o.eTag(), o.lastModified()));
        }
        for (CommonPrefix p : response.commonPrefixes()) {
            String sub = p.prefix();
            if (sub == null || !sub.startsWith(prefix) || sub.equals(prefix)) {
                throw invalid("the listing names the prefix '" + sub + "', outside the prefix asked");
            }
            entries.add(ListEntry.special(location(sub), ListEntry.Kind.FOLDER));
        }
        boolean truncated = Boolean.TRUE.equals(response.isTruncated());
        String next = response.nextContinuationToken();
        if (truncated && (next == null || next.isEmpty())) {
            throw invalid("a truncated page carries no continuation token");
        }
        return new Page(entries, truncated ? next : null);
    }

    private Location location(String key) {
        StringBuilder path = new StringBuilder("s3://").append(bucket);
        for (String segment : key.split("/", -1)) {
            path.append('/').append(Location.encodeSegment(segment));
        }
        return Location.parse(path.toString());
    }
}
