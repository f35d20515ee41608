package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.s3.S3ClientOptions;
import dev.safetensors.s3.S3ObjectWriter;
import dev.safetensors.s3.S3SourceProvider;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.ContainerCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.auth.credentials.InstanceProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The S3 clients built from Hadoop's {@code fs.s3a.*} settings ({@link S3aSettings}), one per distinct settings in
 * this JVM, each with the library's S3 reader and writer over it. The client is the S3 module's
 * ({@link S3ClientOptions#clientBuilder()}: its transport, checksums and retries), given the endpoint, addressing,
 * region and credentials the settings name; what they leave unset comes from the AWS SDK's own chain. Clients live
 * as long as the JVM, as the library's installed backends do. Loaded only when {@code safetensors-s3} is on the
 * class path. Thread-safe.
 */
final class S3aClients {
    /** The S3A provider class names of Hadoop and the AWS SDKs (v1 and v2) understood here, by what they do. */
    private static final Map<String, String> KNOWN = Map.ofEntries(
            Map.entry("org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider", "simple"),
            Map.entry("org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider", "temporary"),
            Map.entry("org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider", "anonymous"),
            Map.entry("com.amazonaws.auth.EnvironmentVariableCredentialsProvider", "environment"),
            Map.entry("software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider", "environment"),
            Map.entry("com.amazonaws.auth.DefaultAWSCredentialsProviderChain", "default"),
            Map.entry("software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider", "default"),
            Map.entry("org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider", "instance"),
            Map.entry("com.amazonaws.auth.InstanceProfileCredentialsProvider", "instance"),
            Map.entry("software.amazon.awssdk.auth.credentials.InstanceProfileCredentialsProvider", "instance"),
            Map.entry("com.amazonaws.auth.profile.ProfileCredentialsProvider", "profile"),
            Map.entry("software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider", "profile"));
    /** Where no region is set and an endpoint is: the region S3-compatible stores sign with. */
    private static final Region FALLBACK_REGION = Region.US_EAST_1;
    private static final Map<S3aSettings, Backend> BUILT = new ConcurrentHashMap<>();

    private S3aClients() {
    }

    /**
     * The library's S3 reader and writer over one client.
     *
     * @param reader reads and lists
     * @param writer uploads and deletes
     */
    record Backend(S3SourceProvider reader, S3ObjectWriter writer) {
    }

    /**
     * @param settings what the user set, not {@linkplain S3aSettings#isEmpty() empty}
     * @return the reader and writer for those settings, built on first use
     * @throws StorageException {@link ErrorCode#INVALID_ENDPOINT} for a credentials provider that is neither known
     *                          here nor an SDK v2 provider on the class path; {@link ErrorCode#IO_ERROR} when the
     *                          SDK cannot build a client (no region)
     */
    static Backend backend(S3aSettings settings) throws StorageException {
        Backend built = BUILT.get(settings);
        if (built != null) {
            return built;
        }
        synchronized (BUILT) {
            built = BUILT.get(settings);
            if (built == null) {
                S3Client client = client(settings);
                built = new Backend(new S3SourceProvider(client), new S3ObjectWriter(client));
                BUILT.put(settings, built);
            }
            return built;
        }
    }

    private static S3Client client(S3aSettings settings) throws StorageException {
        S3ClientBuilder builder = new S3ClientOptions(settings.endpoint(), settings.pathStyle()).clientBuilder();
        AwsCredentialsProvider credentials = credentials(settings);
        if (credentials != null) {
            builder.credentialsProvider(credentials);
        }
        try {
            if (settings.region() != null) {
                builder.region(Region.of(settings.region()));
            } else if (settings.endpoint() != null) {
                builder.region(chainRegionOr(FALLBACK_REGION));
            }
            return builder.build();
        } catch (SdkException | IllegalArgumentException e) {
            throw new StorageException(ErrorCode.IO_ERROR, "s3a", "cannot configure the S3 client from the fs.s3a.*"
                    + " settings (set fs.s3a.endpoint.region or AWS_REGION): " + e.getMessage(), e);
        }
    }

    /** @return the region of the SDK's chain, or {@code fallback} when it has none */
    private static Region chainRegionOr(Region fallback) {
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (SdkClientException e) {
            return fallback;
        }
    }

    /**
     * S3A's rule, for what was set: the listed providers as a chain, each asked in turn; with no list, the keys
     * given (with a session token: temporary credentials); with neither, {@code null}, the SDK's default chain.
     */
    private static AwsCredentialsProvider credentials(S3aSettings settings) throws StorageException {
        if (settings.providers() == null) {
            if (settings.accessKey() == null && settings.secretKey() == null) {
                return null;
            }
            return settings.sessionToken() != null ? temporary(settings) : simple(settings);
        }
        List<AwsCredentialsProvider> chain = new ArrayList<>();
        for (String name : settings.providers()) {
            chain.add(provider(name, settings));
        }
        if (chain.isEmpty()) {
            return null;
        }
        return chain.size() == 1 ? chain.get(0)
                : AwsCredentialsProviderChain.builder().credentialsProviders(chain).build();
    }

    private static AwsCredentialsProvider provider(String name, S3aSettings settings) throws StorageException {
        String kind = KNOWN.get(name);
        if (kind == null) {
            return loaded(name);
        }
        return switch (kind) {
            case "simple" -> simple(settings);
            case "temporary" -> temporary(settings);
            case "anonymous" -> AnonymousCredentialsProvider.create();
            case "environment" -> EnvironmentVariableCredentialsProvider.create();
            case "instance" -> AwsCredentialsProviderChain.builder().credentialsProviders(
                    ContainerCredentialsProvider.builder().build(), InstanceProfileCredentialsProvider.create())
                    .build();
            case "profile" -> ProfileCredentialsProvider.create();
            default -> DefaultCredentialsProvider.builder().build();
        };
    }

    /** The access and secret key; with either missing it yields nothing, so a chain goes on, as S3A's does. */
    private static AwsCredentialsProvider simple(S3aSettings settings) {
        if (settings.accessKey() == null || settings.secretKey() == null) {
            return missing("fs.s3a.access.key and fs.s3a.secret.key are not both set");
        }
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey(),
                settings.secretKey()));
    }

    /** The keys and the session token; with any missing it yields nothing. */
    private static AwsCredentialsProvider temporary(S3aSettings settings) {
        if (settings.accessKey() == null || settings.secretKey() == null || settings.sessionToken() == null) {
            return missing("fs.s3a.access.key, fs.s3a.secret.key and fs.s3a.session.token are not all set");
        }
        return StaticCredentialsProvider.create(AwsSessionCredentials.create(settings.accessKey(),
                settings.secretKey(), settings.sessionToken()));
    }

    private static AwsCredentialsProvider missing(String why) {
        return new AwsCredentialsProvider() {
            @Override
            public AwsCredentials resolveCredentials() {
                throw SdkClientException.create(why);
            }
        };
    }

    /** An SDK v2 provider named by class: its static {@code create()}, else its public no-argument constructor. */
    private static AwsCredentialsProvider loaded(String name) throws StorageException {
        try {
            Class<?> type = Class.forName(name, true, Thread.currentThread().getContextClassLoader() != null
                    ? Thread.currentThread().getContextClassLoader() : S3aClients.class.getClassLoader());
            if (!AwsCredentialsProvider.class.isAssignableFrom(type)) {
                throw unknown(name, "is not an AWS SDK v2 AwsCredentialsProvider");
            }
            try {
                return (AwsCredentialsProvider) type.getMethod("create").invoke(null);
            } catch (NoSuchMethodException e) {
                return (AwsCredentialsProvider) type.getConstructor().newInstance();
            }
        } catch (ClassNotFoundException e) {
            throw unknown(name, "is not on the class path");
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw unknown(name, "cannot be created (it needs a static create() or a public no-argument"
                    + " constructor)");
        }
    }

    private static StorageException unknown(String name, String why) {
        return new StorageException(ErrorCode.INVALID_ENDPOINT, "s3a", "the credentials provider " + name
                + " of fs.s3a.aws.credentials.provider " + why);
    }
}
