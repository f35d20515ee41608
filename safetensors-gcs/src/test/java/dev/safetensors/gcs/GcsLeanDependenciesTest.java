package dev.safetensors.gcs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The module reads through the JSON API only, so its pom leaves out the gRPC transport, the OpenTelemetry metrics
 * exporter with Cloud Monitoring, and the XML API's Jackson: 41 jars and 14.6 MB instead of 86 and 51 MB. Every test of
 * this module runs on that lean set; this one fails when a dependency change brings one of the heavy pieces back.
 */
class GcsLeanDependenciesTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder", // grpc-netty-shaded
            "io.grpc.xds.XdsNameResolverProvider",                    // grpc-xds
            "io.grpc.internal.GrpcUtil",                              // grpc-core
            "org.conscrypt.Conscrypt",                                // conscrypt-openjdk-uber
            "com.google.api.gax.grpc.GrpcTransportChannel",           // gax-grpc
            "com.google.storage.v2.StorageClient",                    // gapic-google-cloud-storage-v2
            "com.google.cloud.monitoring.v3.MetricServiceClient",     // google-cloud-monitoring
            "io.opentelemetry.sdk.OpenTelemetrySdk",                  // opentelemetry-sdk
            "com.fasterxml.jackson.dataformat.xml.XmlMapper",         // jackson-dataformat-xml
    })
    void aHeavyPieceIsNotOnTheClassPath(String className) {
        assertThrows(ClassNotFoundException.class, () -> Class.forName(className, false, getClass().getClassLoader()));
    }
}
