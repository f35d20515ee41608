package dev.safetensors.core;

import dev.safetensors.TensorInfo;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A {@link SafetensorsFile} serves many threads at once: 8 readers see exactly what one reader sees. */
class ConcurrentReadsTest {
    private static final int THREADS = 8;

    @TempDir
    Path dir;

    @Test
    void eightThreadsReadWhatOneThreadReads() throws Exception {
        SafetensorsFixture fixture = SafetensorsFixture.create();
        for (int i = 0; i < 24; i++) {
            // sizes from a few bytes to several blocks, so reads overlap inside and across blocks
            fixture.tensor("t" + i, i % 3 == 0 ? "F32" : i % 3 == 1 ? "BF16" : "U8", 1 + (long) i * i * 197);
        }
        Path path = dir.resolve("concurrent.safetensors");
        Files.write(path, fixture.build());

        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            Map<String, String> expected = checksums(file, file.header().tensors());
            CountDownLatch start = new CountDownLatch(1);
            List<Callable<Map<String, String>>> readers = new ArrayList<>();
            for (int r = 0; r < THREADS; r++) {
                List<TensorInfo> order = new ArrayList<>(file.header().tensors());
                Collections.rotate(order, r * 3);
                readers.add(() -> {
                    start.await();
                    return checksums(file, order);
                });
            }
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<Map<String, String>>> results = new ArrayList<>();
                for (Callable<Map<String, String>> reader : readers) {
                    results.add(pool.submit(reader));
                }
                start.countDown();
                for (Future<Map<String, String>> result : results) {
                    assertEquals(expected, result.get());
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** SHA-256 of every tensor, through each read path, so all of them are exercised concurrently. */
    private static Map<String, String> checksums(SafetensorsFile file, List<TensorInfo> tensors)
            throws IOException, NoSuchAlgorithmException {
        Map<String, String> sums = new HashMap<>();
        for (TensorInfo t : tensors) {
            MessageDigest copied = MessageDigest.getInstance("SHA-256");
            file.copyTensorTo(t.name(), new OutputStream() {
                @Override
                public void write(int b) {
                    copied.update((byte) b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    copied.update(b, off, len);
                }
            });
            MessageDigest read = MessageDigest.getInstance("SHA-256");
            read.update(file.readBytes(t.name()));
            String sum = HexFormat.of().formatHex(copied.digest());
            assertEquals(sum, HexFormat.of().formatHex(read.digest()), t.name());
            if (t.dtype().name().endsWith("F16") || t.dtype().name().equals("F32")) {
                sum += "/" + Arrays.hashCode(file.readFloat32(t.name()));
            }
            sums.put(t.name(), sum);
        }
        return sums;
    }
}
