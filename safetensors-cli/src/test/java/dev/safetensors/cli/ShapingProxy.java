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
 * A loopback TCP proxy that shapes what each client connection sends upstream, as a long network path or a store
 * throttling each connection would: every chunk held for a fixed delay before it is forwarded ({@link #delaying}: a
 * request, which arrives in one chunk, reaches the server that much later), or the connection's bytes paced to a
 * rate ({@link #throttling}: an upload's parts). Answers flow back at once. The waits are kept on the
 * {@link TimeSource} given: the slow tier's throughput tests measure real time, so they pass {@link TimeSource#SYSTEM}.
 * Each connection gets two threads; closing the proxy stops them.
 */
final class ShapingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "shaping-proxy");
        t.setDaemon(true);
        return t;
    });

    private ShapingProxy(int upstreamPort, Duration delay, long bytesPerSecond, TimeSource time) throws IOException {
        listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        threads.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                    threads.execute(() -> pump(client, upstream, delay, bytesPerSecond, time));
                    threads.execute(() -> pump(upstream, client, Duration.ZERO, Long.MAX_VALUE, time));
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
    }

    /**
     * @param upstreamPort the loopback port to forward to
     * @param delay        the delay added to every chunk sent upstream
     * @param time         where the delay is waited
     * @return a started proxy
     */
    static ShapingProxy delaying(int upstreamPort, Duration delay, TimeSource time) throws IOException {
        return new ShapingProxy(upstreamPort, delay, Long.MAX_VALUE, time);
    }

    /**
     * @param upstreamPort   the loopback port to forward to
     * @param bytesPerSecond the most each connection sends upstream per second
     * @param time           where the pace is kept
     * @return a started proxy
     */
    static ShapingProxy throttling(int upstreamPort, long bytesPerSecond, TimeSource time) throws IOException {
        return new ShapingProxy(upstreamPort, Duration.ZERO, bytesPerSecond, time);
    }

    int port() {
        return listener.getLocalPort();
    }

    private static void pump(Socket from, Socket to, Duration delay, long bytesPerSecond, TimeSource time) {
        byte[] buffer = new byte[16 * 1024];
        long start = time.nanoTime();
        long sent = 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (!delay.isZero()) {
                    time.sleep(delay);
                }
                if (bytesPerSecond != Long.MAX_VALUE) {
                    // the bytes sent so far may leave at the rate: these go once that much time has passed
                    long wait = start + (long) (sent * 1e9 / bytesPerSecond) - time.nanoTime();
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
