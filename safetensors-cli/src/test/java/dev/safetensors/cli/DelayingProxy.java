package dev.safetensors.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP proxy that holds every chunk a client sends for a fixed delay before forwarding it: a request,
 * which arrives in one chunk, then reaches the server that much later, as over a long network path. Answers flow
 * back at once. Each connection gets two threads; closing the proxy stops them.
 */
final class DelayingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "delaying-proxy");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param upstreamPort the loopback port to forward to
     * @param delayMillis  the delay added to every chunk sent upstream
     */
    DelayingProxy(int upstreamPort, long delayMillis) throws IOException {
        listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        threads.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                    threads.execute(() -> pump(client, upstream, delayMillis));
                    threads.execute(() -> pump(upstream, client, 0));
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    int port() {
        return listener.getLocalPort();
    }

    private static void pump(Socket from, Socket to, long delayMillis) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (delayMillis > 0) {
                    // a slow peer on purpose: the latency is what PrefixThroughputTest (slow tier) measures against,
                    // so it cannot run on a test clock; no assertion depends on it, only the printed figures
                    TimeUnit.MILLISECONDS.sleep(delayMillis);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the other side closed, or the proxy stopped
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        threads.shutdownNow();
    }
}
