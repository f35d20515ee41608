package dev.safetensors.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sizes with units, as huggingface_hub's parse_size_to_int reads them, plus binary units. */
class ByteSizeTest {
    @Test
    void decimalAndBinaryUnitsInAnyCase() {
        assertEquals(5_000_000_000L, ByteSize.parse("5GB"));
        assertEquals(2L << 30, ByteSize.parse("2GiB"));
        assertEquals(1_500_000L, ByteSize.parse("1.5mb"));
        assertEquals(500L, ByteSize.parse(" 500 B "));
        assertEquals(1L << 40, ByteSize.parse("1tib"));
        assertEquals(1L, ByteSize.parse("0.001KB"));
    }

    @Test
    void aNumberWithoutAUnitOrOutOfRangeIsRefused() {
        IllegalArgumentException bare = assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("5"));
        assertTrue(bare.getMessage().contains("not a size with a unit"), bare.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("0.0001KB"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("9999999999TB"));
        IllegalArgumentException control = assertThrows(IllegalArgumentException.class,
                () -> ByteSize.parse("5\u0007GB"));
        assertTrue(control.getMessage().startsWith("'5?GB'"), control.getMessage());
    }
}
