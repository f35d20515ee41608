package downstream.classpath;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.Safetensors;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.core.Sources;
import dev.safetensors.s3.S3SourceProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;

/**
 * A downstream application on the class path: the local file and the http:// URL through the default
 * {@code Sources}, the S3 object through a registry that holds only the application's own client. Arguments:
 * FILE S3_ENDPOINT s3://BUCKET/KEY http://URL. Credentials from the environment.
 */
public final class ReadThree {
    public static void main(String[] args) throws Exception {
        print(args[0], Sources.open(args[0]));
        try (S3Client s3 = S3Client.builder()
                     .endpointOverride(URI.create(args[1]))
                     .forcePathStyle(true)
                     // ranged GETs cannot be checked against whole-object checksums, and s3proxy refuses the
                     // checksum mode header a default client sends
                     .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                     .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                     .region(Region.US_EAST_1)
                     .build();
             SourceRegistry registry = SourceRegistry.builder().provider(new S3SourceProvider(s3)).build()) {
            print(args[2], registry.open(args[2]));
        }
        print(args[3], Sources.open(args[3]));
    }

    private static void print(String location, RandomAccessSource opened) throws Exception {
        try (RandomAccessSource source = opened) {
            int tensors = Safetensors.readHeader(source).tensors().size();
            System.out.println("READ " + location + " " + tensors + " tensors via "
                    + source.getClass().getName());
        }
    }
}
