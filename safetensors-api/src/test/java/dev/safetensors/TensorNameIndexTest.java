package dev.safetensors;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SafetensorsHeader#tensor(String)} through its reference-free index. */
class TensorNameIndexTest {
    @Test
    void findsEveryTensorOfALargeHeaderAndNothingElse() {
        List<TensorInfo> tensors = new ArrayList<>();
        for (int i = 0; i < 70_000; i++) {
            tensors.add(new TensorInfo("model.layers." + i + ".weight", DType.U8, new long[] {1}, i, i + 1, 1));
        }
        SafetensorsHeader header = new SafetensorsHeader("h", 8 + 2 + 70_000, 2, tensors, Map.of());
        for (int i = 0; i < 70_000; i++) {
            assertEquals(i, header.tensor("model.layers." + i + ".weight").orElseThrow().begin());
        }
        assertTrue(header.tensor("model.layers.70000.weight").isEmpty());
        assertTrue(header.tensor("").isEmpty());
        assertTrue(header.tensor(null).isEmpty());
    }

    @Test
    void namesWithEqualHashCodesAreToldApart() {
        // "Aa" and "BB" have the same String.hashCode(), and so have all their concatenations of equal length
        List<TensorInfo> tensors = new ArrayList<>();
        String[] names = {"AaAa", "AaBB", "BBAa", "BBBB"};
        for (int i = 0; i < names.length; i++) {
            tensors.add(new TensorInfo(names[i], DType.U8, new long[] {1}, i, i + 1, 1));
        }
        SafetensorsHeader header = new SafetensorsHeader("h", 8 + 2 + 4, 2, tensors.subList(0, 3), Map.of());
        for (int i = 0; i < 3; i++) {
            assertEquals(names[i], header.tensor(names[i]).orElseThrow().name());
        }
        assertTrue(header.tensor("BBBB").isEmpty());
    }

    @Test
    void ofTwoTensorsOfOneNameTheFirstIsFound() {
        List<TensorInfo> tensors = List.of(new TensorInfo("w", DType.U8, new long[] {1}, 0, 1, 1),
                new TensorInfo("w", DType.U8, new long[] {1}, 1, 2, 1));
        SafetensorsHeader header = new SafetensorsHeader("h", 8 + 2 + 2, 2, tensors, Map.of());
        assertEquals(0, header.tensor("w").orElseThrow().begin());
    }

    @Test
    void aHeaderWithoutTensorsFindsNothing() {
        assertTrue(new SafetensorsHeader("h", 10, 2, List.of(), Map.of()).tensor("w").isEmpty());
    }
}
