package dev.safetensors.core;

import com.sun.management.ThreadMXBean;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static dev.safetensors.core.HeaderAssertions.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Hostile inputs: whatever the bytes, a checked exception with a code, bounded memory and time. */
class AdversarialInputTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    private interface Action {
        void run() throws Exception;
    }

    /** @return the bytes the current thread allocated while running the action */
    private static long allocatedBy(Action action) throws Exception {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        action.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    private Path sparse(byte[] head, long length) throws IOException {
        Path file = dir.resolve("f" + System.nanoTime() + ".safetensors");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(head);
            raf.setLength(length);
        }
        return file;
    }

    @Test
    void aDeclaredLengthOf2Pow64Minus1AllocatesNothingOfThatSize() throws Exception {
        Path file = sparse(SafetensorsFixture.prefix(-1L), 2L << 30);
        long allocated = allocatedBy(() -> {
            SafetensorsException e = (SafetensorsException) catchIo(() -> Safetensors.readHeader(file));
            assertEquals(ErrorCode.HEADER_TOO_LARGE, e.code());
        });
        assertTrue(allocated < 1 << 20, "allocated " + allocated);
    }

    @Test
    void aMaximalDeclaredHeaderOfZerosCostsOnlyItsBound() throws Exception {
        long bound = Limits.STRICT.maxHeaderBytes();
        Path file = sparse(SafetensorsFixture.prefix(bound), 2L << 30);
        long allocated = allocatedBy(() -> {
            SafetensorsException e = (SafetensorsException) catchIo(() -> Safetensors.readHeader(file));
            assertEquals(ErrorCode.HEADER_START, e.code());
        });
        assertTrue(allocated < bound + (2 << 20), "allocated " + allocated);
    }

    @Test
    void aMillionOpeningBracketsCostNoStack() throws Exception {
        byte[] deep = new byte[1_000_000];
        Arrays.fill(deep, (byte) '[');
        deep[0] = '{';
        byte[] header = ("{\"x\":" + new String(deep, 1, deep.length - 1, java.nio.charset.StandardCharsets.US_ASCII))
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] file = SafetensorsFixture.file(header, new byte[0]);
        fails(ErrorCode.TOO_DEEP, file);
        fails(ErrorCode.TOO_DEEP, file, Limits.OFFICIAL);
        fails(ErrorCode.TOO_DEEP, file, Limits.builder().maxDepth(100_000).build());
        byte[] objects = ("{\"__metadata__\":{" + "\"a\":{".repeat(200_000)).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        fails(ErrorCode.TOO_DEEP, SafetensorsFixture.file(objects, new byte[0]), Limits.OFFICIAL);
    }

    @Test
    void randomBytesAndMutationsOfValidFilesOnlyEverGiveCheckedErrors() {
        Random random = new Random(20261130);
        byte[] valid = SafetensorsFixture.create().metadata("format", "pt").tensor("a", "F32", 2, 2)
                .tensor("b", "BF16", 3).tensor("scalar", "I64").build();
        for (int i = 0; i < 10_000; i++) {
            byte[] input;
            if (i % 4 == 0) {
                input = new byte[random.nextInt(64)];
                random.nextBytes(input);
            } else {
                input = valid.clone();
                int flips = 1 + random.nextInt(4);
                for (int k = 0; k < flips; k++) {
                    int at = random.nextInt(input.length);
                    input[at] = (byte) (i % 3 == 0 ? random.nextInt(256) : "{}[]\",:0123456789-.eE\\u \t"
                            .charAt(random.nextInt(25)));
                }
                if (i % 7 == 0) {
                    input = Arrays.copyOf(input, random.nextInt(input.length + 1));
                }
            }
            for (Limits limits : new Limits[]{Limits.STRICT, Limits.OFFICIAL}) {
                try {
                    Safetensors.readHeader("fuzz", input, limits);
                } catch (SafetensorsException expected) {
                    assertTrue(expected.getMessage().endsWith("[" + expected.code() + "]"));
                } catch (Throwable t) {
                    fail("input " + Arrays.toString(input) + " escaped with " + t, t);
                }
            }
        }
    }

    private static Exception catchIo(Action a) {
        try {
            a.run();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }
}
