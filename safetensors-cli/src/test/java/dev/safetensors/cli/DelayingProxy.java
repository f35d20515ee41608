package dev.safetensors.cli;

import dev.safetensors.spi.TimeSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback TCP proxy that holds every chunk a client sends for a fixed delay before forwarding it: a request,
 * which arrives in one chunk, then reaches the server that much later, as over a long network path. Answers flow
 * back at once. The delay is waited on the {@link TimeSource} given: {@code PrefixThroughputTest} (slow tier)
 * measures real throughput against real latency, so it passes {@link TimeSource#SYSTEM}. Each connection gets two
 * threads; closing the proxy stops them.
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
     * @param delay        the delay added to every chunk sent upstream
     * @param time         where the delay is waited
     */
    DelayingProxy(int upstreamPort, Duration delay, TimeSource time) throws IOException {
        listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        threads.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                    threads.execute(() -> pump(client, upstream, delay, time));
                    threads.execute(() -> pump(upstream, client, Duration.ZERO, time));
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    int port() {
        return listener.getLocalPort();
    }

    private static void pump(Socket from, Socket to, Duration delay, TimeSource time) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (!delay.isZero()) {
                    time.sleep(delay);
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
