package dev.safetensors.core.internal.header;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.core.internal.header.NameHash;
import dev.safetensors.core.internal.header.NameTable;
import dev.safetensors.core.Safetensors;

/** Duplicate detection by {@link NameTable}: by name, not by hash, and past the size the caller expected. */
class NameTableTest {
    @Test
    void namesWithTheSameHashAreToldApartAndDuplicatesFound() {
        List<String> names = new ArrayList<>();
        NameTable table = new NameTable(0, ref -> names.get(ref - 1));
        for (int i = 0; i < 500; i++) {
            String name = "n" + i;
            int slot = table.find(name, 7);
            assertTrue(slot >= 0, name);
            names.add(name);
            table.insert(slot, 7, names.size());
        }
        for (int i = 0; i < 500; i++) {
            assertEquals(-1, table.find("n" + i, 7));
        }
        assertTrue(table.find("n500", 7) >= 0);
    }

    @Test
    void growsPastTheExpectedSize() {
        List<String> names = new ArrayList<>();
        NameTable table = new NameTable(3, ref -> names.get(ref - 1));
        for (int i = 0; i < 100_000; i++) {
            String name = "model.layers." + i + ".weight";
            byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
            int hash = NameHash.of(utf8, 0, utf8.length);
            int slot = table.find(name, hash);
            assertTrue(slot >= 0, name);
            names.add(name);
            table.insert(slot, hash, names.size());
        }
        for (int i = 0; i < 100_000; i += 997) {
            byte[] utf8 = ("model.layers." + i + ".weight").getBytes(StandardCharsets.UTF_8);
            assertEquals(-1, table.find("model.layers." + i + ".weight", NameHash.of(utf8, 0, utf8.length)));
        }
    }

    @Test
    void theHashReadsOnlyTheNamesBytes() {
        byte[] a = "xx\"name\"yyyyyyyyyyyy".getBytes(StandardCharsets.US_ASCII);
        byte[] b = "zzzzz\"name\"".getBytes(StandardCharsets.US_ASCII);
        assertEquals(NameHash.of(a, 3, 7), NameHash.of(b, 6, 10));
    }

    @Test
    void aDuplicateAmongManyTensorsAndOneSpelledWithEscapesAreFound() throws Exception {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < 3000; i++) {
            json.append('"').append("w").append(i).append("\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[")
                    .append(i).append(',').append(i + 1).append("]},");
        }
        String escaped = json + "\"\\u0077\\u0031\\u0037\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,0]}}";
        byte[] header = escaped.getBytes(StandardCharsets.UTF_8);
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> Safetensors.parseHeader("t", header, 8 + header.length + 3000, Limits.STRICT));
        assertEquals(ErrorCode.DUPLICATE_KEY, e.code());
        assertEquals("w17", e.tensor().orElseThrow());
        assertEquals(json.length(), e.headerOffset().orElseThrow());
    }

    @Test
    void namesOfEntriesThatAreNotTensorsCountToo() {
        String undefined = "{\"dtype\":\"Q4\",\"shape\":[],\"data_offsets\":[0,0]}";
        for (String json : new String[] {"{\"q\":" + undefined + ",\"q\":" + undefined + "}",
            "{\"__metadata__\":{},\"q\":" + undefined + ",\"__\\u006detadata__\":{}}"}) {
            byte[] header = json.getBytes(StandardCharsets.UTF_8);
            InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                    () -> Safetensors.parseHeader("t", header, 8 + header.length, Limits.STRICT));
            assertEquals(ErrorCode.DUPLICATE_KEY, e.code(), json);
        }
    }
}
