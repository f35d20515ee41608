package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.spi.RemotePolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key with {@code .} or {@code ..} segments is requested as that exact key: the request line carries the segments
 * percent-encoded, never a raw {@code /../} that an HTTP stack or a proxy would resolve to another object. A raw
 * loopback socket records the request line as sent, with nothing in between to normalise it.
 */
class S3DotSegmentKeyTest {
    private ServerSocket socket;
    private Thread acceptor;
    private final List<String> requestLines = new CopyOnWriteArrayList<>();
    private S3Client client;

    @BeforeEach
    void start() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        socket.setSoTimeout(10_000);
        acceptor = new Thread(this::serve, "s3-request-lines");
        acceptor.setDaemon(true);
        acceptor.start();
        client = WireMockS3.client(URI.create("http://127.0.0.1:" + socket.getLocalPort()));
    }

    /** Answers every request 404 NoSuchKey, recording its request line. */
    private void serve() {
        while (!socket.isClosed()) {
            try (Socket s = socket.accept()) {
                s.setSoTimeout(10_000);
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                        StandardCharsets.ISO_8859_1));
                String line = in.readLine();
                if (line == null) {
                    continue;
                }
                requestLines.add(line);
                for (String h = in.readLine(); h != null && !h.isEmpty(); h = in.readLine()) {
                    // the headers are not looked at; the request has no body
                }
                byte[] body = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code></Error>"
                        .getBytes(StandardCharsets.UTF_8);
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 404 Not Found\r\nContent-Type: application/xml\r\nContent-Length: " + body.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
            } catch (IOException e) {
                // closed at the end of the test, or a connection the client dropped: the next accept says which
            }
        }
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        socket.close();
        acceptor.join(10_000);
    }

    private String requested(String key) {
        requestLines.clear();
        SourceNotFoundException e = assertThrows(SourceNotFoundException.class,
                () -> S3Source.open(client, S3Location.parse(Location.parse("s3://bucket/" + key).uri().orElseThrow()),
                        RemotePolicy.builder().maxAttempts(1).build()).size());
        assertEquals(ErrorCode.NOT_FOUND, e.code(), e.getMessage());
        assertFalse(requestLines.isEmpty());
        return requestLines.get(0);
    }

    @Test
    void dotDotSegmentsAreSentEncodedAsTheExactKey() {
        String line = requested("models/../secret.safetensors");
        assertFalse(line.contains("/../"), line);
        assertTrue(line.startsWith("HEAD /bucket/models/%2E%2E/secret.safetensors ")
                || line.startsWith("GET /bucket/models/%2E%2E/secret.safetensors "), line);
    }

    @Test
    void singleDotAndLeadingDotSegmentsAreSentEncodedToo() {
        String line = requested("./a/./b.safetensors");
        assertFalse(line.contains("/./"), line);
        assertTrue(line.contains(" /bucket/%2E/a/%2E/b.safetensors "), line);
        String trailing = requested("a/..");
        assertTrue(trailing.contains(" /bucket/a/%2E%2E "), trailing);
    }

    @Test
    void dotsInsideANameAreLeftAsTheyAre() {
        String line = requested("a/..b/c..safetensors");
        assertTrue(line.contains(" /bucket/a/..b/c..safetensors "), line);
    }

    @Test
    void aSignedStoreServesTheDotDotKeyItselfNotTheObjectItWouldResolveTo() throws Exception {
        S3ProxyServer s3 = S3ProxyServer.shared();
        s3.put("dots/models/../secret.bin", new byte[] {1, 2, 3});
        s3.put("dots/secret.bin", new byte[] {9});
        try (S3Source source = s3.open("dots/models/../secret.bin")) {
            assertEquals(3, source.size(), "the signature held and the exact key was read");
        }
    }
}
