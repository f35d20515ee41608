package dev.safetensors.signing.internal;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** BLAKE2b-512 against RFC 7693's vector and Python's hashlib.blake2b (the values below), across block edges. */
class Blake2bTest {
    private static String hex(MessageDigest digest) {
        return Hex.encode(digest.digest());
    }

    private static String blake2b(byte[] bytes) {
        MessageDigest digest = new Blake2b();
        digest.update(bytes);
        return hex(digest);
    }

    @Test
    void knownAnswers() {
        assertEquals("786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b"
                + "903a685b1448b755d56f701afe9be2ce", blake2b(new byte[0]));
        assertEquals("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc"
                + "9518d38aa8dbf1925ab92386edd4009923", blake2b("abc".getBytes(StandardCharsets.US_ASCII)));
        // exactly one block: compressed as the final one, not before
        assertEquals("865939e120e6805438478841afb739ae4250cf372653078a065cdcfffca4caf798e6d462b65d658fc165782640eded"
                + "70963449ae1500fb0f24981d7727e22c41", blake2b(new byte[128]));
    }

    @Test
    void manyBlocksFedInUnevenPiecesGiveHashlibsDigest() {
        byte[] data = new byte[300_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        String expected = "5e6293682722c77babdd7b2a66ce5824285fc1c76cb82b2e56fe98e95e93fcd930b65a23030791aeb2bf0093f6"
                + "f93db63f3c7cd8e33ee4a4f6b5da2f52631098";
        assertEquals(expected, blake2b(data));
        MessageDigest pieces = new Blake2b();
        for (int at = 0, step = 1; at < data.length; at += step, step = step * 3 % 1000 + 1) {
            pieces.update(data, at, Math.min(step, data.length - at));
        }
        assertEquals(expected, hex(pieces));
        // digest() resets: the same instance hashes again from scratch
        pieces.update("abc".getBytes(StandardCharsets.US_ASCII));
        assertEquals(blake2b("abc".getBytes(StandardCharsets.US_ASCII)), hex(pieces));
    }
}
