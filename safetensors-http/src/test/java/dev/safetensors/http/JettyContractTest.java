package dev.safetensors.http;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** The storage contract against a real static file server: Jetty's {@link ResourceHandler}, genuine Range support. */
class JettyContractTest extends AbstractRandomAccessSourceContractTest {
    private static final AtomicInteger FILES = new AtomicInteger();
    private static final HttpSourceProvider PROVIDER = new HttpSourceProvider(HttpSettings.builder()
            .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
            .maxRetries(1).backoff(Duration.ofMillis(1), Duration.ofMillis(10)).build());
    private static Server server;
    private static Path root;

    @BeforeAll
    static void start() throws Exception {
        root = Files.createTempDirectory("safetensors-http-jetty");
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ResourceHandler files = new ResourceHandler();
        files.setBaseResource(ResourceFactory.of(server).newResource(root));
        files.setDirAllowed(false);
        files.setEtags(true);
        server.setHandler(files);
        server.start();
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Override
    protected RandomAccessSource open(byte[] content) throws Exception {
        String name = "file-" + FILES.incrementAndGet() + ".safetensors";
        Files.write(root.resolve(name), content);
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        return PROVIDER.open(Location.parse("http://127.0.0.1:" + port + "/" + name));
    }
}
