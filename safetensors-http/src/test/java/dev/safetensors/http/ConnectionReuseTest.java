package dev.safetensors.http;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.fixtures.ConnectionCountingProxy;
import dev.safetensors.testing.TensorReadPattern;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reading every tensor of a 100-tensor file over HTTP reuses one connection: each range read to its exact length
 * confirms the end of its body and hands the connection back. The baseline in the same run closes each range
 * after one byte, which must drop the connection (a large remainder is never drained): one connection per range.
 */
class ConnectionReuseTest {
    private static final int TENSORS = 100;
    private static final int TENSOR_BYTES = 256 * 1024;
    private static Server server;
    private static Path root;
    private static byte[] content;

    @BeforeAll
    static void start() throws Exception {
        root = Files.createTempDirectory("safetensors-http-reuse");
        content = TensorReadPattern.object(TENSORS, TENSOR_BYTES);
        Files.write(root.resolve("model.safetensors"), content);
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ResourceHandler files = new ResourceHandler();
        files.setBaseResource(ResourceFactory.of(server).newResource(root));
        files.setDirAllowed(false);
        server.setHandler(files);
        server.start();
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        try (var paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void everyTensorOfAHundredIsReadOverOneConnection() throws Exception {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        int reused;
        try (ConnectionCountingProxy proxy = new ConnectionCountingProxy(port);
             HttpSourceProvider provider = new HttpSourceProvider(HttpSettings.builder().build());
             RandomAccessSource source = provider.open(Location.parse("http://127.0.0.1:" + proxy.port()
                     + "/model.safetensors"))) {
            TensorReadPattern.readEveryTensor(source, content, TENSORS, TENSOR_BYTES);
            assertEquals(TENSORS + 1, source.statistics().requests());
            reused = proxy.connections();
        }
        int dropped;
        try (ConnectionCountingProxy proxy = new ConnectionCountingProxy(port);
             HttpSourceProvider provider = new HttpSourceProvider(HttpSettings.builder().build());
             RandomAccessSource source = provider.open(Location.parse("http://127.0.0.1:" + proxy.port()
                     + "/model.safetensors"))) {
            for (int t = 0; t < TENSORS; t++) {
                try (ReadableByteChannel ch = source.openRange(TensorReadPattern.PREFIX + (long) t * TENSOR_BYTES,
                        TENSOR_BYTES)) {
                    assertTrue(ch.read(ByteBuffer.allocate(1)) > 0);
                }
            }
            dropped = proxy.connections();
        }
        System.out.println("HTTP connections for " + TENSORS + " tensors: " + reused + " read to their length; "
                + dropped + " closed after one byte (baseline)");
        assertEquals(1, reused, "the header read and 100 tensor reads share one connection");
        assertEquals(TENSORS, dropped, "an early close drops its connection instead of draining 256 KiB");
    }
}
