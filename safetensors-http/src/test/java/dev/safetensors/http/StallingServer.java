package dev.safetensors.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import dev.safetensors.testing.ManualTime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A loopback HTTP/1.1 server written on sockets, because the answers it gives are ones real servers only give when
 * something has gone wrong: a response head, then fewer body bytes than declared, then nothing, with the connection
 * held open until the client hangs up or the server is closed. A stall is a slow peer under a test clock: while it
 * holds a connection, the server moves the client's {@link ManualTime} on by {@link #STALL_STEP} each time
 * {@link #STALL_POLL} of real time passes without the client hanging up, so the client's read timeout comes due on
 * that clock however loaded the machine is, and no test waits a real timeout. Once the client hangs up the clock
 * stops: it moves at most one step during the client's next request. Paths:
 * <ul>
 *   <li>{@code /file}: the object, honouring {@code Range: bytes=a-b} with 206 and {@code Content-Range};</li>
 *   <li>{@code /stall-206}: a 206 for the object's first 100 bytes that sends 10 and stalls;</li>
 *   <li>{@code /stall-redirect}: a 302 to {@code /file} declaring a 50-byte body that never comes;</li>
 *   <li>{@code /stall-404}: a 404 declaring a 30-byte body that never comes.</li>
 * </ul>
 * A body that keeps coming slowly is {@code IdleTimeoutInputStreamTest}'s, on a scripted body.
 */
final class StallingServer implements AutoCloseable {
    private static final Pattern REQUEST = Pattern.compile("GET (\\S+) HTTP/1\\.1\\r\\n.*", Pattern.DOTALL);
    private static final Pattern RANGE = Pattern.compile("(?i)\\r\\nRange: bytes=(\\d+)-(\\d+)\\r\\n");

    /** How far the clock moves per {@link #STALL_POLL} while the server stalls. */
    static final Duration STALL_STEP = Duration.ofMillis(50);
    /** The real time between two moves of the clock while the server stalls. */
    static final int STALL_POLL = 5;

    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final CountDownLatch closed = new CountDownLatch(1);
    private final byte[] object;
    private final ManualTime time;

    /**
     * @param object the object served
     * @param time   the client's clock, moved on while the server stalls
     */
    StallingServer(byte[] object, ManualTime time) throws IOException {
        this.object = object.clone();
        this.time = time;
        Thread acceptor = new Thread(this::accept, "stalling-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket s = socket.accept();
                Thread t = new Thread(() -> serve(s), "stalling-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            for (String head; (head = readHead(in)) != null; ) {
                Matcher request = REQUEST.matcher(head);
                String path = request.matches() ? request.group(1) : "";
                Matcher range = RANGE.matcher(head);
                long first = 0;
                long last = object.length - 1;
                if (range.find()) {
                    first = Long.parseLong(range.group(1));
                    last = Math.min(Long.parseLong(range.group(2)), object.length - 1L);
                }
                switch (path) {
                    case "/file" -> {
                        byte[] body = Arrays.copyOfRange(object, (int) first, (int) last + 1);
                        out.write(head(206, "Content-Range: bytes " + first + "-" + last + "/" + object.length,
                                body.length));
                        out.write(body);
                        out.flush();
                    }
                    case "/stall-206" -> {
                        out.write(head(206, "Content-Range: bytes 0-99/" + object.length, 100));
                        out.write(object, 0, 10);
                        out.flush();
                        stall(s);
                        return;
                    }
                    case "/stall-redirect" -> {
                        out.write(head(302, "Location: /file", 50));
                        out.flush();
                        stall(s);
                        return;
                    }
                    case "/stall-404" -> {
                        out.write(head(404, "Content-Type: text/plain", 30));
                        out.flush();
                        stall(s);
                        return;
                    }
                    default -> {
                        out.write(head(400, "Content-Type: text/plain", 0));
                        out.flush();
                    }
                }
            }
        } catch (IOException e) {
            // the client hung up: nothing more to serve on this connection
        }
    }

    /** Holds the connection, moving the clock on, until the client hangs up or the server is closed. */
    private void stall(Socket s) throws IOException {
        s.setSoTimeout(STALL_POLL);
        InputStream in = s.getInputStream();
        while (closed.getCount() > 0) {
            try {
                if (in.read() < 0) {
                    return;
                }
            } catch (SocketTimeoutException e) {
                time.advance(STALL_STEP);
            }
        }
    }

    private static byte[] head(int status, String header, long contentLength) {
        return ("HTTP/1.1 " + status + " Scripted\r\n" + header + "\r\nContent-Length: " + contentLength + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the request head up to its blank line, or {@code null} when the client closed the connection */
    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        for (int b; (b = in.read()) >= 0; ) {
            head.append((char) b);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                return head.toString();
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        closed.countDown();
        socket.close();
    }
}
