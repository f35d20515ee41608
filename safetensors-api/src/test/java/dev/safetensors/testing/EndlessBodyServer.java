package dev.safetensors.testing;

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
 * A one-connection loopback HTTP/1.1 server that answers its one request with a scripted status line and headers,
 * then a body that never ends, written as fast as the client takes it: the pace is the socket's, so a client that
 * stops reading stops the writes. It records how many body bytes it had sent when the client hung up, which is how a
 * test proves that a body was abandoned rather than drained: a client that abandons it leaves at most what the socket
 * buffers held ({@link #ABANDONED_AT_MOST} is a generous bound); one that drained it would never hang up.
 *
 * <p>Published in this module's test-jar for every backend's "abort, do not drain" tests. Thread-safe.
 */
public final class EndlessBodyServer implements AutoCloseable {
    /** A declared body length no client drains: one terabyte. */
    public static final long TERABYTE = 1L << 40;
    /**
     * More than the loopback socket buffers and a client's own buffers hold, and far less than a drained body: the
     * most body bytes a client that abandons the body lets the server send.
     */
    public static final long ABANDONED_AT_MOST = 64L << 20;

    private final ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    private final CompletableFuture<Long> hangUp = new CompletableFuture<>();
    private final String head;
    private final boolean chunked;

    /**
     * A server that ignores {@code Range}: 200 with a declared {@link #TERABYTE}.
     *
     * @throws IOException if the socket cannot be opened
     */
    public EndlessBodyServer() throws IOException {
        this("200 OK", "Content-Length: " + TERABYTE);
    }

    /**
     * @param status  the status line after {@code HTTP/1.1}, such as {@code 206 Partial Content}
     * @param headers the header lines, without line ends; with {@code Transfer-Encoding: chunked} the body is sent
     *                in chunks, else it is sent bare
     * @throws IOException if the socket cannot be opened
     */
    public EndlessBodyServer(String status, String... headers) throws IOException {
        StringBuilder h = new StringBuilder("HTTP/1.1 ").append(status).append("\r\n");
        for (String header : headers) {
            h.append(header).append("\r\n");
        }
        this.head = h.append("\r\n").toString();
        this.chunked = head.toLowerCase(java.util.Locale.ROOT).contains("\r\ntransfer-encoding: chunked\r\n");
        Thread thread = new Thread(this::serve, "endless-body");
        thread.setDaemon(true);
        thread.start();
    }

    /** @return {@code http://127.0.0.1:PORT/endless} */
    public URI url() {
        return URI.create(endpoint() + "/endless");
    }

    /** @return {@code http://127.0.0.1:PORT}, for clients that build their own paths */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }

    /** @return completes with the body bytes written when the client closed the connection */
    public CompletableFuture<Long> hangUp() {
        return hangUp;
    }

    private void serve() {
        long written = 0;
        try (Socket s = socket.accept()) {
            skipRequestHead(s.getInputStream());
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[16 * 1024];
            byte[] chunkHead = (Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] chunkEnd = {'\r', '\n'};
            while (true) {
                if (chunked) {
                    out.write(chunkHead);
                }
                out.write(chunk);
                if (chunked) {
                    out.write(chunkEnd);
                }
                out.flush();
                written += chunk.length;
            }
        } catch (IOException e) {
            hangUp.complete(written);
        }
    }

    private static void skipRequestHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }

    /** @throws IOException if the socket fails to close */
    @Override
    public void close() throws IOException {
        socket.close();
    }
}
