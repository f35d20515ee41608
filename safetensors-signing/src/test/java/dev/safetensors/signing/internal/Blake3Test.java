package dev.safetensors.signing.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * BLAKE3 against the BLAKE3 team's official test vectors and {@code b3sum}, whole and fed in pieces, from arrays and
 * from direct buffers.
 */
class Blake3Test {
    private static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i % 251);
        }
        return bytes;
    }

    private static String blake3(byte[] bytes) {
        MessageDigest digest = new Blake3();
        digest.update(bytes);
        return Hex.encode(digest.digest());
    }

    /**
     * The {@code hash} cases of {@code test_vectors/test_vectors.json} in github.com/BLAKE3-team/BLAKE3 (commit
     * 77b257e; CC0 / Apache-2.0), the first 32 bytes of each extended output: the input is {@code length} bytes of
     * the repeating sequence 0, 1, ..., 250. {@code b3sum} 1.2.0 (Debian) prints the same for every length here.
     */
    @ParameterizedTest
    @CsvSource({
        "0, af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
        "1, 2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213",
        "63, e9bc37a594daad83be9470df7f7b3798297c3d834ce80ba85d6e207627b7db7b",
        "64, 4eed7141ea4a5cd4b788606bd23f46e212af9cacebacdc7d1f4c6dc7f2511b98",
        "65, de1e5fa0be70df6d2be8fffd0e99ceaa8eb6e8c93a63f2d8d1c30ecb6b263dee",
        "1023, 10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11",
        "1024, 42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7",
        "1025, d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444",
        "2048, e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a",
        "2049, 5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b6879522563030",
        "3072, b98cb0ff3623be03326b373de6b9095218513e64f1ee2edd2525c7ad1e5cffd2",
        "3073, 7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd3",
        "4096, 015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e969",
        "4097, 9b4052b38f1c5fc8b1f9ff7ac7b27cd242487b3d890d15c96a1c25b8aa0fb995",
        "5120, 9cadc15fed8b5d854562b26a9536d9707cadeda9b143978f319ab34230535833",
        "5121, 628bd2cb2004694adaab7bbd778a25df25c47b9d4155a55f8fbd79f2fe154cff",
        "6144, 3e2e5b74e048f3add6d21faab3f83aa44d3b2278afb83b80b3c35164ebeca205",
        "6145, f1323a8631446cc50536a9f705ee5cb619424d46887f3c376c695b70e0f0507f",
        "7168, 61da957ec2499a95d6b8023e2b0e604ec7f6b50e80a9678b89d2628e99ada77a",
        "7169, a003fc7a51754a9b3c7fae0367ab3d782dccf28855a03d435f8cfe74605e7817",
        "8192, aae792484c8efe4f19e2ca7d371d8c467ffb10748d8a5a1ae579948f718a2a63",
        "8193, bab6c09cb8ce8cf459261398d2e7aef35700bf488116ceb94a36d0f5f1b7bc3b",
        "16384, f875d6646de28985646f34ee13be9a576fd515f76b5b0a26bb324735041ddde4",
        "31744, 62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47",
        "102400, bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085"})
    void officialTestVectors(int length, String expected) {
        byte[] input = pattern(length);
        assertEquals(expected, blake3(input));
        // the same bytes one at a time: every block and chunk boundary is then reached with nothing more buffered
        MessageDigest bytewise = new Blake3();
        for (byte b : input) {
            bytewise.update(b);
        }
        assertEquals(expected, Hex.encode(bytewise.digest()));
        // and from a direct buffer, read in place
        MessageDigest direct = new Blake3();
        ByteBuffer buffer = ByteBuffer.allocateDirect(length).put(input).flip();
        direct.update(buffer);
        assertEquals(length, buffer.position());
        assertEquals(expected, Hex.encode(direct.digest()));
    }

    @Test
    void manyChunksFedInUnevenPiecesGiveB3sumsDigest() {
        // 3,000,001 bytes: 2,930 chunks, so the tree has subtrees of many heights left to merge at the end
        byte[] data = new byte[3_000_001];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        // b3sum 1.2.0 of the same bytes
        String expected = "0877dd2f7b4af1b64140b0c9b5b5e16f90fe2e8d120d3cddd582667c86e3d62a";
        assertEquals(expected, blake3(data));
        MessageDigest pieces = new Blake3();
        for (int at = 0, step = 1; at < data.length; at += step, step = step * 7 % 5000 + 1) {
            int n = Math.min(step, data.length - at);
            if (step % 2 == 0) {
                pieces.update(data, at, n);
            } else {
                pieces.update(ByteBuffer.allocateDirect(n).put(data, at, n).flip());
            }
        }
        assertEquals(expected, Hex.encode(pieces.digest()));
        // digest() resets: the same instance hashes again from scratch
        pieces.update("abc".getBytes(StandardCharsets.US_ASCII));
        assertEquals(blake3("abc".getBytes(StandardCharsets.US_ASCII)), Hex.encode(pieces.digest()));
    }

    @Test
    void resetForgetsWhatWasFed() {
        MessageDigest digest = new Blake3();
        digest.update(pattern(5000));
        digest.reset();
        digest.update(pattern(1025));
        assertEquals("d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444", Hex.encode(digest.digest()));
        assertEquals(32, digest.getDigestLength());
    }
}
