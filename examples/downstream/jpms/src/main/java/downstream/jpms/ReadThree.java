package downstream.jpms;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.s3.S3SourceProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;

/**
 * Reads the header of a local file, an S3 object and an http:// URL through one registry that holds the
 * application's own S3 client (its endpoint, path-style addressing); the other schemes come from the installed
 * providers. Arguments: FILE S3_ENDPOINT s3://BUCKET/KEY http://URL. Credentials from the environment.
 */
public final class ReadThree {
    public static void main(String[] args) throws Exception {
        try (S3Client s3 = S3Client.builder()
                     .endpointOverride(URI.create(args[1]))
                     .forcePathStyle(true)
                     // ranged GETs cannot be checked against whole-object checksums, and s3proxy refuses the
                     // checksum mode header a default client sends
                     .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                     .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                     .region(Region.US_EAST_1)
                     .build();
             SourceRegistry sources = SourceRegistry.builder()
                     .provider(new S3SourceProvider(s3))
                     .installedProviders()
                     .build()) {
            for (String location : new String[] {args[0], args[2], args[3]}) {
                try (RandomAccessSource source = sources.open(location)) {
                    int tensors = Safetensors.readHeader(source).tensors().size();
                    System.out.println("READ " + location + " " + tensors + " tensors via "
                            + source.getClass().getModule().getName());
                }
            }
        }
    }
}
