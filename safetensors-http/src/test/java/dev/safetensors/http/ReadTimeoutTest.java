package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.ScriptedAnswer;
import dev.safetensors.fixtures.ScriptedRangeServer;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server that stalls after the response head can no longer hold a read: {@code java.net.http}'s request timeout
 * ends with the headers, so the read timeout ({@link HttpSettings#readTimeout()}) bounds every wait for body bytes,
 * of ranged answers, redirects and errors alike. The timeout runs on the policy's clock, a {@link ManualTime} that the
 * {@link ScriptedRangeServer} moves on by {@link #STALL_STEP} while it holds a connection: no test waits a real
 * timeout, and the outcome does not depend on how loaded the machine is. {@link #LIMIT} only guards against a hang
 * (a read the timeout failed to end).
 * {@link IdleTimeoutInputStreamTest} covers a body that keeps coming slowly, on a scripted body.
 *
 * <p>Alone ({@code @Isolated}): it compares the JVM-wide count of pending read-timeout watchdogs before and after its
 * reads, which any other class's HTTP read would move.
 */
@Isolated
class ReadTimeoutTest {
    private static final Duration READ_TIMEOUT = Duration.ofMillis(200);
    private static final Duration LIMIT = Duration.ofSeconds(60);
    /** How far the client's clock moves each time the server, holding a connection, finds the client still there. */
    private static final Duration STALL_STEP = Duration.ofMillis(50);
    private static final byte[] OBJECT = new byte[1000];

    static {
        for (int i = 0; i < OBJECT.length; i++) {
            OBJECT[i] = (byte) (i * 7);
        }
    }

    private final ManualTime time = new ManualTime();
    private ScriptedRangeServer server;
    private URI file;
    private HttpSourceProvider provider;

    @BeforeEach
    void start() throws IOException {
        server = new ScriptedRangeServer();
        file = server.publish("/file", OBJECT);
        server.whileHolding(() -> time.advance(STALL_STEP));
        provider = new HttpSourceProvider(HttpSettings.builder().readTimeout(READ_TIMEOUT)
                .remotePolicy(RemotePolicy.builder().maxAttempts(1).time(time).build()).build());
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        provider.close();
    }

    @Test
    void aBodyThatStallsMidwayTimesOutNamingTheSource() throws Exception {
        server.script(ScriptedAnswer.serve().holdAfter(10));
        try (RandomAccessSource s = provider.open(Location.of(file))) {
            StorageException e = assertTimeoutPreemptively(LIMIT,
                    () -> assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(100))));
            assertEquals(ErrorCode.TIMEOUT, e.code());
            assertTrue(e.getMessage().startsWith(file + ": no body bytes arrived for 200 ms"),
                    e.getMessage());
            assertEquals(10, s.statistics().bytesRead(), "the bytes that did arrive are counted");
            assertEquals(10, server.bodyBytesSent(), "and they are all the server sent");
        }
    }

    @Test
    void aStallShorterThanTheTimeoutIsWaitedOut() throws Exception {
        // the stall lasts just under the timeout on the client's clock, then the rest of the body comes
        server.whileHolding(() -> {
            time.advance(READ_TIMEOUT.minusMillis(1));
            server.release();
        });
        server.script(ScriptedAnswer.serve().holdAfter(10));
        try (RandomAccessSource s = provider.open(Location.of(file))) {
            ByteBuffer dst = ByteBuffer.allocate(100);
            assertEquals(100, assertTimeoutPreemptively(LIMIT, () -> s.read(0, dst)));
            assertArrayEquals(java.util.Arrays.copyOf(OBJECT, 100), dst.array());
        }
        assertEquals(1, server.requestCount(), "no second request: the held answer was read to its end");
        assertEquals(100, server.bodyBytesSent());
    }

    @Test
    void aRedirectWhoseBodyNeverComesIsStillFollowed() throws Exception {
        server.script(ScriptedAnswer.status(302, "Location: /file").declaring(50).holdAfter(0));
        try (RandomAccessSource s = provider.open(Location.of(server.url("/stall-redirect")))) {
            ByteBuffer dst = ByteBuffer.allocate(100);
            int n = assertTimeoutPreemptively(LIMIT, () -> s.read(0, dst));
            assertEquals(100, n);
            byte[] expected = new byte[100];
            System.arraycopy(OBJECT, 0, expected, 0, 100);
            assertArrayEquals(expected, dst.array(), "the redirect's body was given up on, its Location followed");
        }
    }

    @Test
    void anErrorWhoseBodyNeverComesFails() throws Exception {
        server.script(ScriptedAnswer.status(404, "Content-Type: text/plain").declaring(30).holdAfter(0));
        try (RandomAccessSource s = provider.open(Location.of(server.url("/stall-404")))) {
            assertTimeoutPreemptively(LIMIT,
                    () -> assertThrows(NoSuchFileException.class, () -> s.read(0, ByteBuffer.allocate(100))));
        }
    }

    @Test
    void timeTheCallerSpendsBetweenReadsDoesNotCount() throws Exception {
        try (RandomAccessSource s = provider.open(Location.of(file));
             ReadableByteChannel range = s.openRange(0, 100)) {
            ByteBuffer dst = ByteBuffer.allocate(100);
            dst.limit(10);
            while (dst.hasRemaining()) {
                range.read(dst);
            }
            time.advance(READ_TIMEOUT.multipliedBy(3));
            dst.limit(100);
            while (dst.hasRemaining()) {
                assertTrue(range.read(dst) >= 0);
            }
            assertEquals(-1, range.read(ByteBuffer.allocate(1)), "exactly the promised bytes, then the end");
        }
    }

    @Test
    void closedBodiesLeaveNoTimerBehind() throws Exception {
        int before = IdleTimeoutInputStream.pendingWatchdogs();
        // the system clock, whose timers are real; a timeout no read comes near, so that a timer left behind would
        // stay queued, and no read can time out however loaded the machine is
        try (HttpSourceProvider system = new HttpSourceProvider(HttpSettings.builder()
                .readTimeout(Duration.ofMinutes(10)).maxRetries(0).build());
             RandomAccessSource s = system.open(Location.of(file))) {
            for (int i = 0; i < 50; i++) {
                assertEquals(100, s.read(i * 10L, ByteBuffer.allocate(100)));
            }
        }
        int after = IdleTimeoutInputStream.pendingWatchdogs();
        assertTrue(after <= before, "each read closed its body, and the body's timer went with it instead of waiting"
                + " out the timeout: " + before + " timers pending before, " + after + " after");
    }
}
