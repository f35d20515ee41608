package dev.safetensors.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * A one-connection loopback server that ignores {@code Range} and answers 200 with a declared terabyte, written
 * slowly and forever. It records when the client hangs up, which is how a test proves that a body was abandoned
 * rather than drained: a client that drained would keep the writes going.
 */
final class EndlessBodyServer implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    private final CompletableFuture<Long> hangUp = new CompletableFuture<>();

    EndlessBodyServer() throws IOException {
        Thread thread = new Thread(this::serve, "endless-body");
        thread.setDaemon(true);
        thread.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/endless");
    }

    /** @return completes with the body bytes written when the client closed the connection */
    CompletableFuture<Long> hangUp() {
        return hangUp;
    }

    private void serve() {
        long written = 0;
        try (Socket s = socket.accept()) {
            skipRequestHead(s.getInputStream());
            OutputStream out = s.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[16 * 1024];
            while (!Thread.currentThread().isInterrupted()) {
                out.write(chunk);
                out.flush();
                written += chunk.length;
                Thread.sleep(5);
            }
        } catch (IOException e) {
            hangUp.complete(written);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void skipRequestHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
