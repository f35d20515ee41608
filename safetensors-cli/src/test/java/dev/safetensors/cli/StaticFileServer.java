package dev.safetensors.cli;

import org.eclipse.jetty.http.content.HttpContent;
import org.eclipse.jetty.http.content.ResourceHttpContentFactory;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.resource.ResourceFactory;

import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real static file server on a loopback port: Jetty's {@link ResourceHandler}, with genuine {@code Range} support
 * and ETags, serving a folder. Counts the requests it answers.
 */
final class StaticFileServer {
    private final Server server = new Server();
    private final AtomicInteger requests = new AtomicInteger();

    /**
     * @param root the folder to serve
     * @throws Exception if the server does not start
     */
    StaticFileServer(Path root) throws Exception {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ResourceHandler files = new ResourceHandler() {
            // no content cache: Jetty's revalidates a file once a second, and a test that changes a file between two
            // runs of the command milliseconds apart must be served the new bytes
            @Override
            protected HttpContent.Factory newHttpContentFactory(ByteBufferPool.Sized pool) {
                return new ResourceHttpContentFactory(getBaseResource(), getMimeTypes(), pool);
            }
        };
        files.setBaseResource(ResourceFactory.of(server).newResource(root));
        files.setDirAllowed(false);
        files.setEtags(true);
        server.setHandler(new Handler.Wrapper(files) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                requests.incrementAndGet();
                return super.handle(request, response, callback);
            }
        });
        server.start();
    }

    /** @return {@code http://127.0.0.1:PORT/} */
    URI base() {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort() + "/");
    }

    /** @return the requests answered so far */
    int requests() {
        return requests.get();
    }

    /** @throws Exception if the server does not stop */
    void stop() throws Exception {
        server.stop();
    }
}
