package dev.safetensors.cli;

import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.CheckpointMetadata;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.s3.S3ClientOptions;
import dev.safetensors.s3.S3SourceProvider;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Regression (issue 22): a sharded checkpoint on s3proxy (a real S3 API server in this JVM, on loopback: the
 * module's shared {@link LoopbackS3}, in a bucket of this class's own) opened through a registry that holds the
 * application's own {@code S3Client}, configured in code: no region, endpoint or credentials come from the
 * environment, and every request, the index's and every shard's, goes through that client (counted by an
 * interceptor on it). Before the fix, every shard was reopened through the installed S3 provider,
 * which needs {@code AWS_REGION}.
 */
class OwnS3ClientCheckpointTest {
    private static final String BUCKET = "own-client";
    private static final String INDEX = "s3://" + BUCKET + "/sharded/model.safetensors.index.json";

    @TempDir
    static Path shards;
    private static S3Client client;
    private static final List<String> REQUESTS = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        Fixtures.twoShards(shards.resolve("sharded"));
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.putFiles(BUCKET, shards);
        client = S3ClientOptions.DEFAULT.withEndpoint(s3.endpoint()).withPathStyle(true).clientBuilder()
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY)))
                .overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution execution, ExecutionAttributes attributes) {
                        REQUESTS.add(execution.request().toString());
                    }
                }))
                .build();
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
    }

    @Test
    void everyShardOfACheckpointGoesThroughTheApplicationsOwnClient() throws Exception {
        REQUESTS.clear();
        // the application's provider alone: nothing can fall back to a client built from the environment
        try (SourceRegistry registry = SourceRegistry.builder().provider(new S3SourceProvider(client)).build();
             Checkpoint c = SafetensorsClient.builder().registry(registry).build()
                     .openCheckpoint(dev.safetensors.Location.parse(INDEX))) {
            assertEquals(3, c.tensors().size());
            assertEquals(1 + 2, REQUESTS.size(), "the index and one header per shard, all through our client: "
                    + REQUESTS);
            for (var t : c.tensors()) {
                c.readBytes(t.name());
            }
            assertEquals(c.statistics().requests(), REQUESTS.size(), "tensor reads through the same client");

            REQUESTS.clear();
            CheckpointMetadata m = SafetensorsClient.builder().registry(registry).build()
                    .readAllMetadata(dev.safetensors.Location.parse(INDEX)).get(0);
            assertEquals(3, m.tensorCount());
            assertEquals(m.cost().requests(), REQUESTS.size(), "the one-call metadata through our client too");
        }
    }
}
