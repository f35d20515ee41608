package dev.safetensors.signing.internal;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Random;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One thread's hashing speed in MiB per second of the process's CPU time (so other processes on the machine weigh
 * less than on the wall clock; a second pass is measured, after C2 compiled the first), for each OMS hash, from a heap array and from a direct buffer as {@link ModelHasher}
 * reads into. It asserts nothing about time; it prints lines starting with {@code MEASURED} for
 * benchmarks/README.md.
 */
@Tag("slow")
class HashThroughputTest {
    private static final int MIB = 1 << 20;

    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    }

    @Test
    void measureEachHash() {
        byte[] heap = new byte[MIB];
        new Random(1).nextBytes(heap);
        ByteBuffer direct = ByteBuffer.allocateDirect(MIB).put(heap).flip();
        record Hash(String name, Supplier<MessageDigest> digest, int mib) {
        }
        for (Hash hash : new Hash[] {new Hash("sha256", HashAlgorithms::sha256, 1024),
                new Hash("blake2b", Blake2b::new, 256), new Hash("blake3", Blake3::new, 256)}) {
            for (boolean fromDirect : new boolean[] {false, true}) {
                MessageDigest digest = hash.digest().get();
                // a first pass lets C2 compile the loop; the second is measured
                double best = 0;
                for (int pass = 0; pass < 2; pass++) {
                    long start = cpuNanos();
                    for (int i = 0; i < hash.mib(); i++) {
                        if (fromDirect) {
                            digest.update(direct.clear());
                        } else {
                            digest.update(heap);
                        }
                    }
                    assertEquals(digest.getDigestLength(), digest.digest().length);
                    best = Math.max(best, hash.mib() / ((cpuNanos() - start) / 1e9));
                }
                System.out.printf("MEASURED %s from a %s buffer: %.0f MiB/s of CPU time%n",
                        hash.name(), fromDirect ? "direct" : "heap", best);
            }
        }
    }
}
