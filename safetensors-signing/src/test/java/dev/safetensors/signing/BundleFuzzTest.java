package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.testing.TestSigstore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Mutations of a valid keyless bundle, on the outer JSON and inside each Base64 field (the certificate, the log
 * entry's body, the promise, the proof's hashes, the RFC 3161 token, the signature): whatever the bytes, a keyless
 * verifier either accepts or refuses with a {@link SigningException} and its code, never an unchecked exception.
 * Seeded, so a failure names a mutation that can be replayed; a few hundred cases, well under a second.
 */
class BundleFuzzTest {
    private static final long SEED = 0x5afe7e5L;
    private static final int OUTER = 60;
    private static final int INNER = 140;
    private static final Pattern BASE64 = Pattern.compile("\"([A-Za-z0-9+/]{16,}={0,2})\"");

    @TempDir
    static Path dir;

    private static TestSigstore sigstore;
    private static byte[] valid;

    @BeforeAll
    static void setUp() throws Exception {
        sigstore = new TestSigstore();
        valid = sigstore.bundle(TestSigstore.statement(TestSupport.model(dir)), TestSigstore.options());
    }

    @Test
    void noMutationOfAKeylessBundleEscapesAsAnUncheckedException() throws Exception {
        ModelVerifier verifier = ModelVerifier.keyless(sigstore.root(), TestSigstore.EMAIL, TestSigstore.EMAIL_ISSUER);
        verifier.verifySignature(valid);
        Random random = new Random(SEED);
        String text = new String(valid, StandardCharsets.ISO_8859_1);
        List<int[]> fields = new ArrayList<>();
        Matcher m = BASE64.matcher(text);
        while (m.find()) {
            try {
                Base64.getDecoder().decode(m.group(1));
                fields.add(new int[] {m.start(1), m.end(1)});
            } catch (IllegalArgumentException notBase64) {
                // a name or a hex digest that happens to be in the alphabet
            }
        }
        assertTrue(fields.size() >= 8, "the bundle has its Base64 fields: " + fields.size());
        int refused = 0;
        for (int i = 0; i < OUTER + INNER; i++) {
            byte[] mutated;
            String what;
            if (i < OUTER) {
                mutated = mutate(valid, random);
                what = "outer mutation " + i;
            } else {
                int[] field = fields.get(random.nextInt(fields.size()));
                byte[] decoded = Base64.getDecoder().decode(text.substring(field[0], field[1]));
                String encoded = Base64.getEncoder().encodeToString(mutate(decoded, random));
                mutated = (text.substring(0, field[0]) + encoded + text.substring(field[1]))
                        .getBytes(StandardCharsets.ISO_8859_1);
                what = "inner mutation " + i + " of the field at " + field[0];
            }
            try {
                verifier.verifySignature(mutated);
            } catch (SigningException e) {
                assertNotNull(ErrorCode.of(e), what);
                refused++;
            } catch (RuntimeException | StackOverflowError e) {
                fail(what + " (seed " + SEED + ") escaped as " + e, e);
            }
        }
        assertTrue(refused > (OUTER + INNER) / 2, "most mutations are refused: " + refused);
    }

    /** One of: flip a bit, set a byte to a DER length or tag extreme, cut, drop a run, or repeat a run. */
    private static byte[] mutate(byte[] bytes, Random random) {
        if (bytes.length == 0) {
            return new byte[] {(byte) random.nextInt(256)};
        }
        int at = random.nextInt(bytes.length);
        byte[] out;
        switch (random.nextInt(5)) {
            case 0 -> {
                out = bytes.clone();
                out[at] ^= (byte) (1 << random.nextInt(8));
            }
            case 1 -> {
                out = bytes.clone();
                byte[] extremes = {0, (byte) 0x7f, (byte) 0x80, (byte) 0x84, (byte) 0xff, 0x30, 0x1f};
                out[at] = extremes[random.nextInt(extremes.length)];
            }
            case 2 -> out = Arrays.copyOf(bytes, at);
            case 3 -> {
                int end = Math.min(bytes.length, at + 1 + random.nextInt(16));
                out = new byte[bytes.length - (end - at)];
                System.arraycopy(bytes, 0, out, 0, at);
                System.arraycopy(bytes, end, out, at, bytes.length - end);
            }
            default -> {
                int end = Math.min(bytes.length, at + 1 + random.nextInt(16));
                out = new byte[bytes.length + (end - at)];
                System.arraycopy(bytes, 0, out, 0, end);
                System.arraycopy(bytes, at, out, end, bytes.length - at);
            }
        }
        return out;
    }
}
