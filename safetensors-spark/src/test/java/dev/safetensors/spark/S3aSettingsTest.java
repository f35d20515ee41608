package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.UploadOptions;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which {@code fs.s3a.*} settings apply to a bucket and how: per-bucket keys first, Hadoop's own defaults not taken
 * for the user's, a bare host given a scheme, malformed settings refused naming the key and never the value, the
 * settings unchanged by the trip to the executors; and the Spark source's registry reading, listing and writing
 * {@code s3://} through a client built from the general keys alone, against s3proxy.
 */
class S3aSettingsTest {

    private static Configuration bare() {
        return new Configuration(false);
    }

    @Test
    void aBucketsOwnKeysComeBeforeTheGeneralOnes() throws Exception {
        Configuration conf = bare();
        conf.set("fs.s3a.endpoint", "http://general.example:9000");
        conf.set("fs.s3a.path.style.access", "true");
        conf.set("fs.s3a.endpoint.region", "eu-west-1");
        conf.set("fs.s3a.access.key", "AKIA-GENERAL");
        conf.set("fs.s3a.secret.key", "general-secret");
        conf.set("fs.s3a.bucket.special.endpoint", "https://special.example");
        conf.set("fs.s3a.bucket.special.secret.key", "special-secret");
        S3aSettings general = S3aSettings.of(conf, "other");
        assertEquals(URI.create("http://general.example:9000"), general.endpoint());
        assertEquals(Boolean.TRUE, general.pathStyle());
        assertEquals("eu-west-1", general.region());
        assertEquals("general-secret", general.secretKey());
        S3aSettings special = S3aSettings.of(conf, Location.parse("s3://special/key.safetensors"));
        assertEquals(URI.create("https://special.example"), special.endpoint());
        assertEquals("special-secret", special.secretKey());
        assertEquals("AKIA-GENERAL", special.accessKey(), "what the bucket does not set is the general value");
        assertTrue(S3aSettings.of(bare(), "any").isEmpty());
    }

    @Test
    void hadoopsDefaultsAreNotTheUsersSettings() throws Exception {
        Configuration defaults = new Configuration();
        assertTrue(defaults.get("fs.s3a.aws.credentials.provider") != null, "core-default.xml has a provider list");
        assertTrue(S3aSettings.of(defaults, "bucket").isEmpty(), "its provider list and path style are not the user's");
        defaults.set("fs.s3a.path.style.access", "false");
        assertEquals(Boolean.FALSE, S3aSettings.of(defaults, "bucket").pathStyle(), "set, even to the default");
    }

    @Test
    void aBareHostTakesTheSchemeConnectionSslEnabledSays() throws Exception {
        Configuration conf = bare();
        conf.set("fs.s3a.endpoint", "minio.internal:9000");
        assertEquals(URI.create("https://minio.internal:9000"), S3aSettings.of(conf, "b").endpoint());
        conf.set("fs.s3a.connection.ssl.enabled", "false");
        assertEquals(URI.create("http://minio.internal:9000"), S3aSettings.of(conf, "b").endpoint());
    }

    @Test
    void malformedSettingsAreInvalidEndpointNamingTheKeyNeverTheValue() {
        for (String[] bad : List.of(new String[] {"fs.s3a.endpoint", "ftp://files.example/"},
                new String[] {"fs.s3a.endpoint", "http://name:pa55word@store.example"},
                new String[] {"fs.s3a.bucket.b.path.style.access", "yes-pa55word"})) {
            Configuration conf = bare();
            conf.set(bad[0], bad[1]);
            StorageException e = assertThrows(StorageException.class, () -> S3aSettings.of(conf, "b"));
            assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
            assertTrue(e.getMessage().contains(bad[0]), e.getMessage());
            assertFalse(e.getMessage().contains("pa55word") || e.getMessage().contains("files.example"),
                    e.getMessage());
        }
    }

    @Test
    void noKeyOrTokenIsShown() throws Exception {
        Configuration conf = bare();
        conf.set("fs.s3a.access.key", "AKIA-SHOWN-NOWHERE");
        conf.set("fs.s3a.secret.key", "secret-shown-nowhere");
        conf.set("fs.s3a.session.token", "token-shown-nowhere");
        String shown = S3aSettings.of(conf, "b").toString();
        assertFalse(shown.contains("shown-nowhere") || shown.contains("SHOWN-NOWHERE"), shown);
    }

    @Test
    void theSettingsSurviveTheTripToTheExecutors() throws Exception {
        Configuration conf = new Configuration();
        conf.set("fs.s3a.endpoint", "http://127.0.0.1:9000");
        conf.set("fs.s3a.bucket.b.access.key", "AKIA-B");
        conf.set("fs.s3a.bucket.b.secret.key", "secret-b");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(HadoopConf.of(conf));
        }
        Configuration shipped;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            shipped = ((HadoopConf) in.readObject()).get();
        }
        assertEquals(S3aSettings.of(conf, "b"), S3aSettings.of(shipped, "b"));
        assertNull(S3aSettings.of(shipped, "b").providers(), "the defaults are still known as defaults");
    }

    @Test
    void anUnknownCredentialsProviderIsRefusedAndTheCommonOnesBuild() throws Exception {
        Configuration conf = bare();
        conf.set("fs.s3a.endpoint", "http://127.0.0.1:1");
        conf.set("fs.s3a.aws.credentials.provider", "com.example.NoSuchProvider");
        StorageException e = assertThrows(StorageException.class,
                () -> S3aClients.backend(S3aSettings.of(conf, "b")));
        assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
        assertTrue(e.getMessage().contains("com.example.NoSuchProvider"), e.getMessage());
        conf.set("fs.s3a.aws.credentials.provider", String.join(",",
                "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
                "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider",
                "org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider",
                "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider",
                "com.amazonaws.auth.DefaultAWSCredentialsProviderChain",
                "software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider",
                "software.amazon.awssdk.auth.credentials.SystemPropertyCredentialsProvider"));
        S3aClients.backend(S3aSettings.of(conf, "b"));
    }

    /** The general keys alone, no per-bucket key, through the registry the Spark source reads and writes with. */
    @Test
    void theSourcesRegistryReadsListsAndWritesWithTheGeneralKeys() throws Exception {
        LoopbackS3 s3 = LoopbackS3.shared();
        String bucket = "s3a-settings";
        s3.put(bucket, "present.txt", "here".getBytes(StandardCharsets.UTF_8));
        Configuration conf = bare();
        conf.set("fs.s3a.endpoint", s3.endpoint().toString());
        conf.set("fs.s3a.access.key", LoopbackS3.ACCESS_KEY);
        conf.set("fs.s3a.secret.key", LoopbackS3.SECRET_KEY);
        Configuration before = HadoopFiles.conf();
        HadoopFiles.use(conf);
        try {
            Location written = Location.parse("s3://" + bucket + "/out/written.bin");
            byte[] content = "written through fs.s3a".getBytes(StandardCharsets.UTF_8);
            try (ObjectUpload upload = SparkSources.registry().writer(written).create(written,
                    UploadOptions.DEFAULT)) {
                upload.write(ByteBuffer.wrap(content));
                upload.commit();
            }
            assertArrayEquals(content, s3.get(bucket, "out/written.bin"));
            try (RandomAccessSource source = SparkSources.registry().open(written)) {
                ByteBuffer read = ByteBuffer.allocate(content.length);
                source.readFully(0, read);
                assertArrayEquals(content, read.array());
            }
            try (var listing = SparkSources.registry().list(Location.parse("s3://" + bucket + "/"),
                    dev.safetensors.ListOptions.DEFAULT.withRecursive(true))) {
                int n = 0;
                while (listing.hasNext()) {
                    listing.next();
                    n++;
                }
                assertEquals(2, n);
            }
        } finally {
            HadoopFiles.use(before);
        }
    }
}
