package dev.safetensors.examples;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A Jetty server on a loopback port that records each request's method, path, query and {@code Range}. */
final class LoopbackServer implements AutoCloseable {
    private final Server server = new Server();
    private final List<String> requests = new CopyOnWriteArrayList<>();

    LoopbackServer(Handler handler) throws Exception {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Wrapper(handler) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                String query = request.getHttpURI().getQuery();
                String range = request.getHeaders().get("Range");
                requests.add(request.getMethod() + " " + request.getHttpURI().getPath()
                        + (query == null ? "" : "?" + query) + (range == null ? "" : " " + range));
                return super.handle(request, response, callback);
            }
        });
        server.start();
    }

    /** @return {@code 127.0.0.1:PORT} */
    String hostAndPort() {
        return "127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    /** @return every request answered so far, as {@code METHOD PATH[?QUERY] [RANGE]} */
    List<String> requests() {
        return List.copyOf(requests);
    }

    void clearRequests() {
        requests.clear();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
