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
 * A loopback TCP proxy that paces what each client connection sends upstream to a fixed number of bytes per second,
 * as a store throttles each connection of an upload; answers flow back at once. The pace is kept on the
 * {@link TimeSource} given: {@code UploadThroughputTest} (slow tier) measures real throughput, so it passes
 * {@link TimeSource#SYSTEM}. Each connection gets two threads; closing the proxy stops them.
 */
final class ThrottlingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "throttling-proxy");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param upstreamPort   the loopback port to forward to
     * @param bytesPerSecond the most each connection sends upstream per second
     * @param time           where the pace is kept
     */
    ThrottlingProxy(int upstreamPort, long bytesPerSecond, TimeSource time) throws IOException {
        listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        threads.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                    threads.execute(() -> pump(client, upstream, bytesPerSecond, time));
                    threads.execute(() -> pump(upstream, client, Long.MAX_VALUE, time));
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    int port() {
        return listener.getLocalPort();
    }

    private static void pump(Socket from, Socket to, long bytesPerSecond, TimeSource time) {
        byte[] buffer = new byte[16 * 1024];
        long start = time.nanoTime();
        long sent = 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (bytesPerSecond != Long.MAX_VALUE) {
                    // when the bytes sent so far may leave at the cap, then send these
                    long due = start + (long) (sent * 1e9 / bytesPerSecond);
                    long wait = due - time.nanoTime();
                    if (wait > 0) {
                        time.sleep(Duration.ofNanos(wait));
                    }
                }
                out.write(buffer, 0, n);
                out.flush();
                sent += n;
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
