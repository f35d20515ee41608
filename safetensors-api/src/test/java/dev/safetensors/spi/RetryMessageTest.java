package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The failure after the last attempt says the backend's reason once: a backend's coded failure (the HTTP backend turns
 * a {@link ConnectException} into a {@code NETWORK} {@link StorageException}) gives its detail, not its whole message,
 * so neither the source's name nor the code is repeated ({@code ... ConnectException [NETWORK] [NETWORK]}).
 */
class RetryMessageTest {
    private final RemotePolicy policy = RemotePolicy.builder().time(new ManualTime()).maxAttempts(2).build();

    @Test
    void aCodedFailureIsQuotedByItsDetail() {
        ScriptedSource s = new ScriptedSource(policy);
        for (int i = 0; i < 2; i++) {
            s.fail(new StorageException(ErrorCode.NETWORK, "scripted://object", "GET scripted://object failed: "
                    + "java.net.ConnectException", new ConnectException()));
        }
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.NETWORK, e.code());
        assertEquals("scripted://object: GET bytes=0-7 failed after 2 attempts: GET scripted://object failed:"
                + " java.net.ConnectException [NETWORK]", e.getMessage());
        assertEquals(1, count(e.getMessage(), "[NETWORK]"), e.getMessage());
    }

    @Test
    void anUncodedFailureIsQuotedByItsMessage() {
        ScriptedSource s = new ScriptedSource(policy).fail(new ConnectException("refused"))
                .fail(new ConnectException("refused"));
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.NETWORK, e.code());
        assertTrue(e.getMessage().endsWith("failed after 2 attempts: refused [NETWORK]"), e.getMessage());
    }

    @Test
    void aFailureWithNoMessageIsQuotedByWhatItIsNeverNull() {
        // the JDK's HTTP client reports a refused connection as a ConnectException with no message at all
        ScriptedSource s = new ScriptedSource(policy).fail(new ConnectException()).fail(new ConnectException());
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.NETWORK, e.code());
        assertTrue(e.getMessage().endsWith("failed after 2 attempts: connection refused [NETWORK]"), e.getMessage());
        ScriptedSource reset = new ScriptedSource(policy).fail(new java.net.SocketException())
                .fail(new java.net.SocketException());
        StorageException r = assertThrows(StorageException.class, () -> reset.read(0, ByteBuffer.allocate(8)));
        assertTrue(r.getMessage().endsWith("failed after 2 attempts: SocketException [NETWORK]"), r.getMessage());
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
