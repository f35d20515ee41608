package dev.safetensors.examples.memory;

import dev.safetensors.TensorInfo;
import dev.safetensors.memory.LittleEndian;
import dev.safetensors.memory.SegmentFile;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Maps a tensor of any size as a read-only {@link MemorySegment} (JDK 22+), reads its last element, widens its first
 * few to float, and maps it again in an arena of its own.
 *
 * <pre>
 * java ... dev.safetensors.examples.memory.MapAnySize [FILE [TENSOR]]
 * </pre>
 *
 * Without arguments it maps {@code embed.weight} of {@code examples/data/sample.safetensors}.
 */
public final class MapAnySize {
    private MapAnySize() {
    }

    /**
     * @param args the file and the tensor, both optional
     * @throws IOException if the file cannot be read or is not valid
     */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args.length > 0 ? args[0] : sample());
        String name = args.length > 1 ? args[1] : "embed.weight";
        // [segments]
        try (SegmentFile f = SegmentFile.open(file)) {
            TensorInfo t = f.header().tensor(name).orElseThrow();
            MemorySegment w = f.segment(name);                  // valid until f.close(), of any size
            System.out.println(name + " " + t.dtype() + Arrays.toString(t.shape()) + ": " + w.byteSize() + " bytes");
            if (t.dtype().name().equals("F32")) {
                float last = w.getAtIndex(LittleEndian.FLOAT, t.elementCount() - 1);
                System.out.println("last element: " + last);
            }
            float[] first = new float[(int) Math.min(4, t.elementCount())];
            f.readFloat32(name, 0, first, 0, first.length);     // F32, F16, BF16, F8: widened exactly
            System.out.println("first elements: " + Arrays.toString(first));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mine = f.segment(name, arena);    // valid until arena.close()
                System.out.println("read-only: " + mine.isReadOnly());
            }
        }
        // [/segments]
    }

    /** @return the sample file, from the repository root or from the examples folder */
    private static String sample() {
        for (String candidate : new String[] {"examples/data/sample.safetensors", "../data/sample.safetensors",
                "../examples/data/sample.safetensors", "data/sample.safetensors"}) {
            if (Path.of(candidate).toFile().isFile()) {
                return candidate;
            }
        }
        return "examples/data/sample.safetensors";
    }
}
