package dev.safetensors.fuzz.reference;

import java.util.List;

/**
 * One tensor entry of a header the reference accepted.
 *
 * @param name  the name, unescaped
 * @param dtype the dtype name
 * @param shape the dimensions
 * @param begin the first payload byte
 * @param end   the payload byte after the last
 */
public record ReferenceTensor(String name, String dtype, List<Long> shape, long begin, long end) {
}
