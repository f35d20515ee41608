package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static dev.safetensors.core.HeaderAssertions.valid;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Random valid headers, in random JSON order, are accepted and read back exactly as they were built. */
class RandomHeaderPropertyTest {
    private static final DType[] STRICT = DType.strictSet().toArray(new DType[0]);
    private static final String ALPHABET = "abcXYZ019._-/ \"\\\t\n\u00e9\u4e2d\uD83D\uDE00";

    private record Planned(String name, DType dtype, long[] shape, long begin, long end) {
    }

    @Test
    void randomValidHeadersRoundTrip() throws Exception {
        Random random = new Random(42);
        for (int round = 0; round < 500; round++) {
            List<Planned> planned = new ArrayList<>();
            Set<String> names = new HashSet<>();
            long offset = 0;
            int count = random.nextInt(40);
            for (int i = 0; i < count; i++) {
                String name = randomString(random, 1 + random.nextInt(30));
                if (name.equals("__metadata__") || !names.add(name)) {
                    continue;
                }
                DType dtype = STRICT[random.nextInt(STRICT.length)];
                long[] shape = new long[random.nextInt(5)];
                long elements = 1;
                for (int d = 0; d < shape.length; d++) {
                    shape[d] = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(6);
                    elements *= shape[d];
                }
                long bytes = elements * dtype.byteSize();
                planned.add(new Planned(name, dtype, shape, offset, offset + bytes));
                offset += bytes;
            }
            Map<String, String> metadata = new LinkedHashMap<>();
            int keys = random.nextInt(4);
            for (int k = 0; k < keys; k++) {
                metadata.put(randomString(random, 1 + random.nextInt(10)), randomString(random, random.nextInt(50)));
            }
            List<Planned> jsonOrder = new ArrayList<>(planned);
            Collections.shuffle(jsonOrder, random);
            SafetensorsFixture f = SafetensorsFixture.create();
            metadata.forEach(f::metadata);
            if (random.nextBoolean()) {
                f.metadataLast();
            }
            for (Planned p : jsonOrder) {
                f.tensor(p.name, p.dtype.name(), p.shape, p.begin, p.end);
            }
            if (random.nextInt(4) == 0) {
                f.padding(random.nextInt(20));
            }
            SafetensorsHeader h = valid(f.build());
            assertEquals(metadata, h.metadata());
            assertEquals(List.copyOf(metadata.keySet()), List.copyOf(h.metadata().keySet()));
            assertEquals(offset, h.payloadLength());
            List<TensorInfo> got = h.tensors();
            assertEquals(planned.size(), got.size());
            for (int i = 0; i < planned.size(); i++) {
                Planned p = planned.get(i);
                TensorInfo t = h.tensor(p.name).orElseThrow();
                assertEquals(p.dtype, t.dtype());
                assertArrayEquals(p.shape, t.shape());
                assertEquals(p.begin, t.begin());
                assertEquals(p.end, t.end());
            }
            for (int i = 1; i < got.size(); i++) {
                assertEquals(got.get(i - 1).end(), got.get(i).begin(), "data order");
            }
        }
    }

    private static String randomString(Random random, int length) {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < length) {
            int at = random.nextInt(ALPHABET.length());
            char c = ALPHABET.charAt(at);
            if (Character.isHighSurrogate(c)) {
                sb.append(c).append(ALPHABET.charAt(at + 1));
            } else if (!Character.isLowSurrogate(c)) {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
