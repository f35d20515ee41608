package dev.safetensors.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A loopback HTTP server for one file that behaves like a store throttling each connection: every response starts
 * after a fixed latency and its body is paced to a fixed rate, per request. Answers {@code Range: bytes=a-b} with 206,
 * {@code Content-Range} and a strong ETag, so {@code HttpSource} reads it like any remote object.
 */
final class ThrottledFileServer implements AutoCloseable {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");
    private static final int CHUNK = 64 * 1024;

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "throttled-server");
        t.setDaemon(true);
        return t;
    });
    private final FileChannel file;
    private final long size;
    private final long bytesPerSecond;
    private final long latencyNanos;

    /**
     * @param path           the file served at {@code /file}
     * @param bytesPerSecond the body rate of each response
     * @param latencyMillis  the wait before each response
     */
    ThrottledFileServer(Path path, long bytesPerSecond, long latencyMillis) throws IOException {
        this.file = FileChannel.open(path, StandardOpenOption.READ);
        this.size = file.size();
        this.bytesPerSecond = bytesPerSecond;
        this.latencyNanos = TimeUnit.MILLISECONDS.toNanos(latencyMillis);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/file", this::answer);
        server.setExecutor(threads);
        server.start();
    }

    /** @return the file's URL */
    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/file");
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            long start = System.nanoTime() + latencyNanos;
            LockSupport.parkNanos(latencyNanos);
            String range = exchange.getRequestHeaders().getFirst("Range");
            long from = 0;
            long to = size - 1;
            int status = 200;
            if (range != null) {
                Matcher m = RANGE.matcher(range);
                if (!m.matches()) {
                    exchange.sendResponseHeaders(416, -1);
                    return;
                }
                from = Long.parseLong(m.group(1));
                to = Math.min(size - 1, Long.parseLong(m.group(2)));
                status = 206;
                exchange.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + to + "/" + size);
            }
            exchange.getResponseHeaders().set("ETag", "\"v1\"");
            exchange.getResponseHeaders().set("Accept-Ranges", "bytes");
            long length = to - from + 1;
            if ("HEAD".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Content-Length", Long.toString(size));
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(status, length);
            OutputStream out = exchange.getResponseBody();
            ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
            long sent = 0;
            while (sent < length) {
                chunk.clear().limit((int) Math.min(CHUNK, length - sent));
                while (chunk.hasRemaining()) {
                    if (file.read(chunk, from + sent + chunk.position()) < 0) {
                        throw new IOException("file shorter than " + size);
                    }
                }
                out.write(chunk.array(), 0, chunk.position());
                sent += chunk.position();
                // pace the body: this response may not be ahead of bytesPerSecond since it started
                long due = start + sent * 1_000_000_000L / bytesPerSecond;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.stop(0);
        threads.shutdownNow();
        file.close();
    }
}
