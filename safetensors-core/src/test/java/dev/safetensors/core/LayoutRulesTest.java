package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.safetensors.core.HeaderAssertions.fails;
import static dev.safetensors.core.HeaderAssertions.valid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rule 21: the ranges tile the payload exactly. */
class LayoutRulesTest {
    private static final long[] FOUR = {4};

    @Test
    void tensorsComeBackInDataOrderAndByName() throws Exception {
        SafetensorsHeader h = valid(SafetensorsFixture.create()
                .tensor("c", "I8", new long[]{5}, 24, 29)
                .tensor("a", "F32", FOUR, 0, 16)
                .tensor("b", "BF16", new long[]{2, 2}, 16, 24)
                .metadata("format", "pt").metadataLast().build());
        assertEquals(List.of("a", "b", "c"), h.tensors().stream().map(TensorInfo::name).toList());
        assertEquals(24, h.tensor("c").orElseThrow().begin());
        assertFalse(h.tensor("d").isPresent());
        assertEquals(29, h.payloadLength());
        assertEquals("pt", h.metadata().get("format"));
        assertEquals(h.fileSize(), h.payloadOffset() + h.payloadLength());
    }

    @Test
    void aHoleIsAGap() {
        fails(ErrorCode.OFFSETS_GAP, SafetensorsFixture.create().tensor("a", "U8", FOUR, 0, 4)
                .tensor("b", "U8", FOUR, 5, 9).build());
        fails(ErrorCode.OFFSETS_GAP, SafetensorsFixture.create().tensor("a", "U8", FOUR, 1, 5).build());
    }

    @Test
    void sharedBytesAreAnOverlap() {
        fails(ErrorCode.OFFSETS_OVERLAP, SafetensorsFixture.create().tensor("a", "U8", FOUR, 0, 4)
                .tensor("b", "U8", FOUR, 3, 7).build());
        fails(ErrorCode.OFFSETS_OVERLAP, SafetensorsFixture.create().tensor("a", "U8", FOUR, 0, 4)
                .tensor("b", "U8", FOUR, 0, 4).build());
        fails(ErrorCode.OFFSETS_OVERLAP, SafetensorsFixture.create().tensor("a", "U8", FOUR, 0, 4)
                .tensor("e", "U8", new long[]{0}, 2, 2).build());
    }

    @Test
    void zeroLengthTensorsMayShareAnOffset() throws Exception {
        SafetensorsHeader h = valid(SafetensorsFixture.create().tensor("a", "U8", FOUR, 0, 4)
                .tensor("e1", "U8", new long[]{0}, 4, 4).tensor("e2", "F32", new long[]{0, 3}, 4, 4)
                .tensor("b", "U8", FOUR, 4, 8).build());
        assertEquals(4, h.tensors().size());
    }

    @Test
    void unindexedBytesAfterTheLastTensorAreTrailing() {
        fails(ErrorCode.TRAILING_BYTES, SafetensorsFixture.create().tensor("a", "U8", FOUR, 0, 4).payloadLength(5)
                .build());
        fails(ErrorCode.TRAILING_BYTES, SafetensorsFixture.create().payloadLength(1).build());
        fails(ErrorCode.TRAILING_BYTES, SafetensorsFixture.create().metadata("k", "v").payloadLength(1).build());
    }

    @Test
    void aRangePastTheEndIsOutOfFile() {
        var e = fails(ErrorCode.OUT_OF_FILE, SafetensorsFixture.create().tensor("a", "U8", FOUR, 0, 4).payloadLength(3)
                .build());
        assertEquals("a", e.tensor().orElseThrow());
    }

    @Test
    void anEmptyPayloadWithNoTensorsIsValid() throws Exception {
        SafetensorsHeader h = valid(SafetensorsFixture.file("{}      ", 0));
        assertTrue(h.tensors().isEmpty());
        assertEquals(16, h.fileSize());
        assertTrue(h.payloadAligned());
    }
}
