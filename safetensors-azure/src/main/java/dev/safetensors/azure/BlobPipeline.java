package dev.safetensors.azure;

import com.azure.core.exception.ClientAuthenticationException;
import com.azure.core.http.HttpPipeline;
import com.azure.core.http.HttpPipelineBuilder;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.core.http.policy.RetryPolicy;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.common.policy.RequestRetryPolicy;
import dev.safetensors.ErrorCode;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipeline a {@link BlobServiceClient} sends with (its HTTP client, credentials, date, user agent and request
 * id policies) without its retry policies, and the service version its requests declare. Every retry is the shared
 * layer's, so neither the SDK's {@code RequestRetryPolicy} nor azure-core's {@code RetryPolicy} waits inside an
 * attempt, whoever built the client. {@link #send} sends one attempt and codes what kept it from being answered.
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

    /**
     * Sends one attempt of a request. A failure to connect becomes a {@link ErrorCode#NETWORK} failure naming the
     * host and port (the JDK's HTTP client says no more than {@code ConnectException} with no message), which the
     * shared retry rule retries; a failed Entra ID sign-in is {@link ErrorCode#ACCESS_DENIED}, as a retry would
     * repeat it; an interruption is an {@link InterruptedIOException}; a failure with no I/O cause (a credential or
     * client failure) is {@link ErrorCode#IO_ERROR}. No message quotes the URL, whose query may carry a SAS.
     *
     * @param request the request, its URL without credentials
     * @param name    the blob, for messages
     * @param what    the request, for messages ({@code "GET bytes=0-99"}, {@code "Put Block"})
     * @return the answer, whatever its status; the caller closes it
     * @throws IOException if no answer came
     */
    HttpResponse send(HttpRequest request, String name, String what) throws IOException {
        try {
            return pipeline.sendSync(request, Context.NONE);
        } catch (UncheckedIOException e) {
            throw noConnection(request, name, e.getCause());
        } catch (ClientAuthenticationException e) {
            throw new SourceAccessDeniedException(name, "no Entra ID token could be had for the storage account: "
                    + SourceNames.clip(String.valueOf(e.getMessage())));
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException(name + ": interrupted during " + what);
                }
                if (t instanceof IOException io) {
                    throw noConnection(request, name, io);
                }
            }
            throw new StorageException(ErrorCode.IO_ERROR, name, what + " could not be sent: "
                    + e.getClass().getSimpleName() + ": " + SourceNames.clip(String.valueOf(e.getMessage())), e);
        }
    }

    private static IOException noConnection(HttpRequest request, String name, IOException e) {
        if (e instanceof ConnectException || e instanceof UnknownHostException) {
            String reason;
            try {
                reason = SourceNames.noAnswer(request.getUrl().toURI(), e);
            } catch (URISyntaxException x) {
                reason = SourceNames.reason(e);
            }
            return new StorageException(ErrorCode.NETWORK, name, reason, e);
        }
        return e;
    }
}
