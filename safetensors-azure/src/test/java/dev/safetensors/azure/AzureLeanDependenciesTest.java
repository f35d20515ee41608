package dev.safetensors.azure;

import com.azure.core.http.HttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The module sends through the JDK's {@code java.net.http.HttpClient} (azure-core-http-jdk-httpclient), so its pom
 * leaves out azure-core-http-netty, which azure-storage-common brings by default: 14 Azure SDK jars and 7.0 MB instead
 * of 42 and 19.0 MB. Every test of this module runs on that lean set; this one fails when Netty comes back.
 */
class AzureLeanDependenciesTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "com.azure.core.http.netty.NettyAsyncHttpClientProvider", // azure-core-http-netty
            "io.netty.channel.Channel",                               // netty-transport
            "reactor.netty.http.client.HttpClient",                   // reactor-netty-http
            "io.netty.internal.tcnative.SSL",                         // netty-tcnative-boringssl-static
    })
    void aHeavyPieceIsNotOnTheClassPath(String className) {
        assertThrows(ClassNotFoundException.class, () -> Class.forName(className, false, getClass().getClassLoader()));
    }

    @Test
    void theClientsBuiltHereUseTheJdkHttpClient() {
        HttpClient client = AzureClientOptions.httpClient();
        assertEquals("com.azure.core.http.jdk.httpclient.JdkHttpClient", client.getClass().getName());
    }

    @Test
    void entraIdSignsInWhenAzureIdentityIsPresentAndNothingElseIsConfigured() throws Exception {
        // azure-identity is an optional dependency, so it is on this module's test class path
        assertEquals("Entra ID (DefaultAzureCredential)", AzureClientOptions.NONE.credentialKind());
        assertEquals("anonymous", AzureClientOptions.builder().entraId(false).build().credentialKind());
        com.azure.core.http.HttpPipeline pipeline = AzureClientOptions.NONE.buildClient(AzureLocation.parse(
                java.net.URI.create("abfss://models@acct.dfs.core.windows.net/m.safetensors"))).getHttpPipeline();
        boolean bearer = false;
        for (int i = 0; i < pipeline.getPolicyCount(); i++) {
            bearer |= pipeline.getPolicy(i).getClass().getSimpleName().contains("BearerToken");
        }
        assertEquals(true, bearer, "the client signs its requests with an Entra ID token");
    }
}
