package dev.safetensors.examples;

import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.Safetensors;
import dev.safetensors.s3.S3ClientOptions;
import dev.safetensors.s3.S3SourceProvider;

import java.io.IOException;
import java.net.URI;

/**
 * Checks a {@code .safetensors} object in Amazon S3 or an S3-compatible store (MinIO, Ceph, R2, s3proxy) and lists
 * what it claims to contain, reading only its header: one ranged GET when the header fits the 128 KiB prefix,
 * two otherwise, whatever the object's size.
 *
 * <pre>java ... dev.safetensors.examples.InspectS3 s3://BUCKET/KEY[?versionId=ID] [ENDPOINT]</pre>
 *
 * <p>Without {@code ENDPOINT}, region, credentials and endpoint come from the AWS SDK's configuration chain
 * ({@code AWS_REGION}, {@code AWS_ACCESS_KEY_ID}, profiles, {@code AWS_ENDPOINT_URL_S3}, instance roles). With one,
 * such as {@code http://127.0.0.1:9000}, buckets are addressed path-style ({@code ENDPOINT/BUCKET/KEY}), as most
 * compatible stores need.
 */
public final class InspectS3 {
    private InspectS3() {
    }

    /**
     * @param args the {@code s3://} URI, optionally followed by an endpoint URL
     * @throws IOException if the object cannot be read (missing, access denied, a range answered wrongly) or breaks
     *                     a rule
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            throw new IllegalArgumentException("usage: InspectS3 s3://BUCKET/KEY [ENDPOINT]");
        }
        S3ClientOptions options = args.length == 2
                ? S3ClientOptions.DEFAULT.withEndpoint(URI.create(args[1])).withPathStyle(true)
                : S3ClientOptions.DEFAULT;
        // Opening makes no request: the first ranged GET returns the prefix and the object's size and ETag together.
        try (RandomAccessSource source = new S3SourceProvider(options).open(Location.parse(args[0]))) {
            HeaderListing.print(Safetensors.readHeader(source, Limits.STRICT));
            HeaderListing.printCost(source);
        }
    }
}
