package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.fixtures.LoopbackS3;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The store write into {@code s3a://} whose endpoint, addressing, region and keys come only from Hadoop's
 * {@code fs.s3a.*} settings on the session (per bucket: {@code fs.s3a.bucket.BUCKET.*}, so the other test classes'
 * buckets keep the SDK's chain), served by the test kit's shared s3proxy: no {@code safetensors.s3.*} property and
 * no AWS endpoint in the environment or the SDK's properties, which {@link #configure} checks first. What the
 * bucket holds is read from s3proxy itself. A bucket whose {@code fs.s3a.secret.key} is wrong is refused by the
 * store ({@link ErrorCode#ACCESS_DENIED}), for writes and reads, and no message names the secret.
 */
class S3aStoreWriteTest extends AbstractStoreWriteTest {
    private static final String BUCKET = "spark-s3a";
    private static final String DENIED = "spark-s3a-denied";
    private static final String WRONG_SECRET = "not-the-secret-6c1f";
    private static LoopbackS3 s3;

    @BeforeAll
    static void configure() throws IOException {
        for (String property : List.of("safetensors.s3.endpoint", "safetensors.s3.pathStyle", "aws.endpointUrl",
                "aws.endpointUrlS3")) {
            assertNull(System.getProperty(property), property + " is set: the endpoint must come from fs.s3a.*");
        }
        for (String variable : List.of("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID",
                "AWS_SECRET_ACCESS_KEY")) {
            assertNull(System.getenv(variable), variable + " is set: the settings must come from fs.s3a.*");
        }
        s3 = LoopbackS3.shared();
        s3.put(BUCKET, "elsewhere/kept.txt", "not under any output".getBytes(StandardCharsets.UTF_8));
        s3.put(DENIED, "kept.safetensors", Fixtures.bytes(1));
        Configuration hadoop = spark.sparkContext().hadoopConfiguration();
        for (String bucket : List.of(BUCKET, DENIED)) {
            String at = "fs.s3a.bucket." + bucket + ".";
            // a bare host, as S3A takes it, made http:// by connection.ssl.enabled=false
            hadoop.set(at + "endpoint", "127.0.0.1:" + s3.port());
            hadoop.set(at + "connection.ssl.enabled", "false");
            hadoop.set(at + "path.style.access", "true");
            hadoop.set(at + "endpoint.region", "eu-west-2");
            hadoop.set(at + "aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
            hadoop.set(at + "access.key", LoopbackS3.ACCESS_KEY);
            hadoop.set(at + "secret.key", bucket.equals(DENIED) ? WRONG_SECRET : LoopbackS3.SECRET_KEY);
        }
    }

    @Override
    protected String output(String name) {
        return "s3a://" + BUCKET + "/" + name + "/";
    }

    /** What s3proxy holds under the prefix. */
    @Override
    protected Set<String> names(String output) {
        String prefix = output.substring(("s3a://" + BUCKET + "/").length());
        Set<String> names = new TreeSet<>();
        s3.keys(BUCKET, prefix).forEach(k -> names.add(k.substring(prefix.length())));
        return names;
    }

    @Test
    void theBucketIsReadWithItsSettingsAndNothingOutsideTheOutputsChanged() {
        List<Row> rows = spark.read().format("safetensors").option("level", "file")
                .option("recursiveFileLookup", "true").load("s3a://" + BUCKET + "/").collectAsList();
        assertFalse(rows.isEmpty());
        for (Row r : rows) {
            assertNull(r.getAs("error_code"), r.toString());
        }
        assertEquals(Set.of("elsewhere/kept.txt"), s3.keys(BUCKET, "elsewhere/"));
    }

    @Test
    void aWrongSecretKeyIsAccessDeniedForWritesAndReadsAndNeverShown() {
        Exception write = assertThrows(Exception.class, () -> spark.read().format("safetensors")
                .option("data", "binary").load(dir.resolve("sharded").toString()).select("tensor", "dtype", "shape",
                        "data").write().format("safetensors").option("layout", "checkpoint")
                .save("s3a://" + DENIED + "/out/"));
        assertDenied(write);
        Exception read = assertThrows(Exception.class, () -> spark.read().format("safetensors")
                .option("mode", "FAILFAST").load("s3a://" + DENIED + "/kept.safetensors").collectAsList());
        assertDenied(read);
        assertEquals(Set.of("kept.safetensors"), s3.keys(DENIED, ""), "nothing written");
    }

    private static void assertDenied(Throwable failure) {
        ErrorCode code = null;
        for (Throwable c = failure; c != null; c = c.getCause()) {
            assertFalse(String.valueOf(c.getMessage()).contains(WRONG_SECRET), "the secret in " + c);
            if (code == null && c instanceof ErrorCoded coded) {
                code = coded.code();
            }
        }
        assertEquals(ErrorCode.ACCESS_DENIED, code, failure.toString());
    }
}
