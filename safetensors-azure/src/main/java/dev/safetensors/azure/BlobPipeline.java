package dev.safetensors.azure;

import com.azure.core.http.HttpPipeline;
import com.azure.core.http.HttpPipelineBuilder;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.core.http.policy.RetryPolicy;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.common.policy.RequestRetryPolicy;

import java.util.ArrayList;
import java.util.List;

/**
 * The pipeline a {@link BlobServiceClient} sends with (its HTTP client, credentials, date, user agent and request
 * id policies) without its retry policies, and the service version its requests declare. Every retry is the shared
 * layer's, so neither the SDK's {@code RequestRetryPolicy} nor azure-core's {@code RetryPolicy} waits inside an
 * attempt, whoever built the client.
 *
 * @param pipeline       the pipeline, without retry policies
 * @param serviceVersion the {@code x-ms-version} to send
 */
record BlobPipeline(HttpPipeline pipeline, String serviceVersion) {

    static BlobPipeline of(BlobServiceClient client) {
        HttpPipeline original = client.getHttpPipeline();
        List<HttpPipelinePolicy> kept = new ArrayList<>(original.getPolicyCount());
        for (int i = 0; i < original.getPolicyCount(); i++) {
            HttpPipelinePolicy policy = original.getPolicy(i);
            if (!(policy instanceof RequestRetryPolicy) && !(policy instanceof RetryPolicy)) {
                kept.add(policy);
            }
        }
        HttpPipeline pipeline = new HttpPipelineBuilder()
                .httpClient(original.getHttpClient())
                .policies(kept.toArray(new HttpPipelinePolicy[0]))
                .build();
        return new BlobPipeline(pipeline, client.getServiceVersion().getVersion());
    }
}
