package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.safetensors.core.HeaderAssertions.fails;
import static dev.safetensors.core.HeaderAssertions.valid;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rules 15 to 20: metadata and tensor entries. */
class EntryRulesTest {

    private static byte[] entry(String body, int payload) {
        return SafetensorsFixture.file("{\"w\":{" + body + "}}", payload);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"k\":1}", "{\"k\":null}", "{\"k\":[]}", "{\"k\":{}}", "{\"k\":true}", "[]", "\"x\"", "1",
            "null"})
    void rule15MetadataIsAnObjectOfStrings(String metadata) {
        fails(ErrorCode.INVALID_METADATA, SafetensorsFixture.file("{\"__metadata__\":" + metadata + "}", 0));
    }

    @Test
    void rule15MetadataKeepsFileOrder() throws Exception {
        SafetensorsHeader h = valid(SafetensorsFixture.create().metadata("z", "1").metadata("a", "2")
                .metadata("m", "").build());
        assertEquals(java.util.List.of("z", "a", "m"), java.util.List.copyOf(h.metadata().keySet()));
    }

    @Test
    void rule16EntriesHaveExactlyTheThreeFields() throws Exception {
        valid(entry("\"data_offsets\":[0,1],\"shape\":[1],\"dtype\":\"U8\"", 1));
        fails(ErrorCode.INVALID_TENSOR_ENTRY, entry("\"shape\":[1],\"data_offsets\":[0,1]", 1));
        fails(ErrorCode.INVALID_TENSOR_ENTRY, entry("\"dtype\":\"U8\",\"data_offsets\":[0,1]", 1));
        fails(ErrorCode.INVALID_TENSOR_ENTRY, entry("\"dtype\":\"U8\",\"shape\":[1]", 1));
        SafetensorsException extra = fails(ErrorCode.INVALID_TENSOR_ENTRY,
                entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"extra\":1", 1));
        assertEquals("w", extra.tensor().orElseThrow());
        fails(ErrorCode.INVALID_TENSOR_ENTRY, entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"extra\":1",
                1), Limits.OFFICIAL);
        fails(ErrorCode.INVALID_TENSOR_ENTRY, SafetensorsFixture.file("{\"w\":[]}", 0));
        fails(ErrorCode.INVALID_TENSOR_ENTRY, SafetensorsFixture.file("{\"w\":\"U8\"}", 0));
        fails(ErrorCode.INVALID_TENSOR_ENTRY, entry("\"dtype\":8,\"shape\":[1],\"data_offsets\":[0,1]", 1));
        fails(ErrorCode.INVALID_TENSOR_ENTRY, entry("\"dtype\":\"U8\",\"shape\":{},\"data_offsets\":[0,1]", 1));
    }

    @Test
    void rule17EveryStrictDtypeIsAccepted() throws Exception {
        SafetensorsFixture f = SafetensorsFixture.create();
        for (DType t : DType.strictSet()) {
            f.tensor("t_" + t, t.name(), 2, 3);
        }
        SafetensorsHeader h = valid(f.build());
        assertEquals(13, h.tensors().size());
        for (TensorInfo t : h.tensors()) {
            assertEquals(6L * t.dtype().byteSize(), t.byteLength());
        }
    }

    @Test
    void rule17OtherDtypesAreUnsupportedWithTheAcceptedNames() {
        for (String name : new String[]{"F8_E4M3", "F8_E5M2", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "C64",
                "float32", "f32", "Float32", "F128"}) {
            int size = name.equals("C64") ? 8 : 1;
            SafetensorsException e = fails(ErrorCode.UNSUPPORTED_DTYPE, SafetensorsFixture.create()
                    .tensor("w", name, new long[]{4}, 0, 4L * size).build());
            assertInstanceOf(UnsupportedDtypeException.class, e);
            assertTrue(e.getMessage().contains("BF16"), e.getMessage());
            assertEquals("w", e.tensor().orElseThrow());
        }
    }

    @Test
    void rule17AnUnsupportedDtypeDoesNotHideAnInvalidFile() {
        fails(ErrorCode.OFFSETS_GAP, SafetensorsFixture.create().tensor("a", "F8_E4M3", new long[]{4}, 0, 4)
                .tensor("b", "U8", new long[]{1}, 5, 6).build());
        fails(ErrorCode.LENGTH_MISMATCH, SafetensorsFixture.create().tensor("a", "F8_E4M3", new long[]{4}, 0, 5)
                .build());
        fails(ErrorCode.INVALID_TENSOR_ENTRY, SafetensorsFixture.file(
                "{\"a\":{\"dtype\":\"float32\",\"shape\":[1],\"data_offsets\":[0,4]},\"b\":1}", 4));
    }

    @Test
    void rule17AnUndefinedDtypeDoesNotHideALayoutError() throws Exception {
        // found by the fuzzer: a dtype name the format does not define used to switch the layout check off
        fails(ErrorCode.OFFSETS_GAP, SafetensorsFixture.create().tensor("a", "float32", new long[]{4}, 0, 4)
                .tensor("b", "U8", new long[]{1}, 5, 6).build());
        fails(ErrorCode.OFFSETS_GAP, SafetensorsFixture.create().tensor("w", "f32", new long[]{1}, 1, 1).build());
        fails(ErrorCode.OFFSETS_OVERLAP, SafetensorsFixture.create().tensor("a", "U8", new long[]{4}, 0, 4)
                .tensor("b", "Q4_0", new long[]{4}, 2, 6).payloadLength(6).build());
        fails(ErrorCode.OUT_OF_FILE, SafetensorsFixture.create().tensor("a", "F128", new long[]{1}, 0, 16)
                .payloadLength(8).build());
        fails(ErrorCode.TRAILING_BYTES, SafetensorsFixture.create().tensor("a", "F128", new long[]{1}, 0, 16)
                .payloadLength(17).build());
        SafetensorsException e = fails(ErrorCode.UNSUPPORTED_DTYPE, SafetensorsFixture.create()
                .tensor("b", "U8", new long[]{4}, 4, 8).tensor("a", "F128", new long[]{1}, 0, 4).build());
        assertEquals("a", e.tensor().orElseThrow());
    }

    @Test
    void rule17OfficialAcceptsAll22() throws Exception {
        SafetensorsFixture f = SafetensorsFixture.create();
        long at = 0;
        for (DType t : DType.all()) {
            long bytes = 16L * t.bits() / 8;
            f.tensor("t_" + t, t.name(), new long[]{16}, at, at + bytes);
            at += bytes;
        }
        assertEquals(22, valid(f.build(), Limits.OFFICIAL).tensors().size());
    }

    @Test
    void subByteDtypesMustSpanWholeBytes() throws Exception {
        valid(SafetensorsFixture.create().tensor("w", "F4", new long[]{2}, 0, 1).build(), Limits.OFFICIAL);
        fails(ErrorCode.MISALIGNED, SafetensorsFixture.create().tensor("w", "F4", new long[]{3}, 0, 2).build(),
                Limits.OFFICIAL);
        valid(SafetensorsFixture.create().tensor("w", "F6_E2M3", new long[]{4}, 0, 3).build(), Limits.OFFICIAL);
        fails(ErrorCode.MISALIGNED, SafetensorsFixture.create().tensor("w", "F6_E3M2", new long[]{2}, 0, 2).build(),
                Limits.OFFICIAL);
    }

    @Test
    void rule18RankUpTo16() throws Exception {
        long[] sixteen = new long[16];
        java.util.Arrays.fill(sixteen, 1);
        assertEquals(16, valid(SafetensorsFixture.create().tensor("w", "U8", sixteen).build()).tensors().get(0).rank());
        long[] seventeen = new long[17];
        java.util.Arrays.fill(seventeen, 1);
        fails(ErrorCode.RANK_TOO_LARGE, SafetensorsFixture.create().tensor("w", "U8", seventeen).build());
        valid(SafetensorsFixture.create().tensor("w", "U8", seventeen).build(), Limits.OFFICIAL);
    }

    @Test
    void rule18DataOffsetsAreExactlyTwo() {
        fails(ErrorCode.INVALID_OFFSETS, entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]", 1));
        fails(ErrorCode.INVALID_OFFSETS, entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0]", 1));
        fails(ErrorCode.INVALID_OFFSETS, entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[]", 1));
        fails(ErrorCode.INVALID_OFFSETS, entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":{}", 1));
        fails(ErrorCode.INVALID_OFFSETS, entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,\"1\"]", 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-0", "1.0", "1e3", "1E3", "0.5", "9223372036854775808", "18446744073709551616",
            "99999999999999999999999999999999999999999"})
    void rule18NumbersArePlainIntegersFromZeroTo2Pow63Minus1(String number) {
        fails(ErrorCode.INVALID_NUMBER, entry("\"dtype\":\"U8\",\"shape\":[" + number + "],\"data_offsets\":[0,1]", 1));
        fails(ErrorCode.INVALID_NUMBER, entry("\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[" + number + ",1]", 1));
    }

    @Test
    void rule18TheLargestNumberIsAccepted() {
        // accepted as a number; then the tensor cannot fit the file
        fails(ErrorCode.OUT_OF_FILE, entry("\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[9223372036854775807,"
                + "9223372036854775807]", 0));
    }

    @Test
    void rule18AMillionDigitNumberIsCheapToRefuse() {
        String digits = "1".repeat(1_000_000);
        fails(ErrorCode.INVALID_NUMBER, entry("\"dtype\":\"U8\",\"shape\":[" + digits + "],\"data_offsets\":[0,1]", 1));
    }

    @Test
    void rule19BeginNotAfterEndScalarsAndEmptyTensors() throws Exception {
        fails(ErrorCode.INVALID_OFFSETS, entry("\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[1,0]", 1));
        TensorInfo scalar = valid(entry("\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]", 4)).tensors().get(0);
        assertEquals(0, scalar.rank());
        assertEquals(1, scalar.elementCount());
        SafetensorsHeader empty = valid(SafetensorsFixture.create().tensor("e", "F32", 0, 5).tensor("f", "F32", 5, 0)
                .build());
        assertEquals(0, empty.tensors().get(0).byteLength());
        assertEquals(0, empty.payloadLength());
    }

    @Test
    void rule20OverflowIsCheckedLeftToRight() {
        fails(ErrorCode.OVERFLOW, entry("\"dtype\":\"U8\",\"shape\":[4611686018427387904,4,0],\"data_offsets\":[0,0]", 0));
        fails(ErrorCode.OVERFLOW, entry("\"dtype\":\"U8\",\"shape\":[9223372036854775807,2],\"data_offsets\":[0,0]", 0));
        fails(ErrorCode.OVERFLOW, entry("\"dtype\":\"F64\",\"shape\":[2305843009213693952],\"data_offsets\":[0,0]", 0));
    }

    @Test
    void rule20LengthMustMatchDtypeAndShape() throws Exception {
        SafetensorsException e = fails(ErrorCode.LENGTH_MISMATCH,
                entry("\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,15]", 15));
        assertTrue(e.getMessage().contains("needs 16"), e.getMessage());
        assertArrayEquals(new long[]{2, 2},
                valid(entry("\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]", 16)).tensors().get(0).shape());
    }
}
