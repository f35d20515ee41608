package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HexFormat;

import static dev.safetensors.core.HeaderAssertions.fails;
import static dev.safetensors.core.HeaderAssertions.utf8;
import static dev.safetensors.core.HeaderAssertions.valid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rules 7 to 11: encoding, strict JSON, padding, depth and duplicates. */
class JsonRulesTest {
    private static final String W = "{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}";

    private static byte[] withMetadataValueBytes(String hex) {
        byte[] pre = utf8("{\"__metadata__\":{\"k\":\"");
        byte[] mid = HexFormat.of().parseHex(hex);
        byte[] post = utf8("\"}}");
        byte[] header = new byte[pre.length + mid.length + post.length];
        System.arraycopy(pre, 0, header, 0, pre.length);
        System.arraycopy(mid, 0, header, pre.length, mid.length);
        System.arraycopy(post, 0, header, pre.length + mid.length, post.length);
        return SafetensorsFixture.file(header, new byte[0]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ff", "c0af", "c1bf", "e080af", "eda080", "edbfbf", "f08080af", "f4908080", "f5808080",
            "80", "c3", "e282", "f09f98", "fe"})
    void rule7InvalidUtf8IsRefusedWithItsOffset(String hex) {
        SafetensorsException e = fails(ErrorCode.INVALID_UTF8, withMetadataValueBytes(hex));
        assertEquals(22, e.headerOffset().orElseThrow(), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"7f", "c280", "dfbf", "e0a080", "ed9fbf", "ee8080", "efbfbf", "f0908080", "f48fbfbf",
            "e298832066f09f9880"})
    void rule7ValidUtf8IsAccepted(String hex) throws Exception {
        valid(withMetadataValueBytes(hex));
    }

    @Test
    void rule7PaddingMustBeUtf8Too() {
        byte[] header = utf8("{}      ");
        header[5] = (byte) 0xff;
        fails(ErrorCode.INVALID_UTF8, SafetensorsFixture.file(header, new byte[0]));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"__metadata__\":{\"k\":\"v\"},}", "{'a':{}}", "{/*c*/}", "{\"__metadata__\":{\"k\":\"v\",}}", "{\"w\":" + "{\"dtype\":\"U8\",\"shape\":[NaN],\"data_offsets\":[0,1]}}",
            "{\"w\":{\"dtype\":\"U8\",\"shape\":[01],\"data_offsets\":[0,1]}}",
            "{\"w\":{\"dtype\":\"U8\",\"shape\":[+1],\"data_offsets\":[0,1]}}",
            "{\"__metadata__\":{\"k\":\"a\tb\"}}", "{\"__metadata__\":{\"k\":\"\\x\"}}",
            "{\"__metadata__\":{\"k\":\"\\ud800\"}}", "{\"__metadata__\":{\"k\":\"\\udc00\\ud800\"}}",
            "{\"__metadata__\":{\"\\ud83d\":\"v\"}}", "{\"__metadata__\":{\"k\":\"\\ud83d\\u0041\"}}",
            "{\"__metadata__\":{\"k\":\"\\ud83d\\ud83d\\ude00\"}}", "{\"__metadata__\":{\"k\":\"\\ud83d\\\\ude00\"}}",
            "{\"w\":[\"\\ud800\"]}", "{\"a\" \"b\"}", "{\"__metadata__\":{}", "{\"__metadata__\":{}}}",
            "{}{}", "{} x", "{\"__metadata__\":{\"k\":\"v\"}}\u0000"})
    void rule8And9OnlyStrictJsonFollowedByWhitespace(String json) {
        SafetensorsException e = fails(ErrorCode.INVALID_JSON, SafetensorsFixture.file(json, 0));
        assertTrue(e.headerOffset().isPresent(), e.getMessage());
    }

    @Test
    void rule8EscapedSurrogatePairsAndEscapesAreFine() throws Exception {
        var h = valid(SafetensorsFixture.file("{\"__metadata__\":{\"k\":\"\\ud83d\\ude00 \\u00e9 \\n \\\" \\/\"}}", 0));
        assertEquals("\uD83D\uDE00 \u00e9 \n \" /", h.metadata().get("k"));
    }

    @Test
    void rule9WhitespacePaddingOfEveryKindIsAccepted() throws Exception {
        valid(SafetensorsFixture.file("{} \t\r\n", 0));
        var e = fails(ErrorCode.INVALID_JSON, SafetensorsFixture.file("{}\u0000\u0000", 0));
        assertTrue(e.getMessage().contains("NUL"), e.getMessage());
        assertEquals(2, e.headerOffset().orElseThrow());
    }

    @Test
    void rule10DepthIsBoundedAtEight() {
        // depth 8 is allowed by the tokenizer (and then refused for its shape); depth 9 is too deep
        String eight = "{\"__metadata__\":{\"k\":" + "[".repeat(6) + "]".repeat(6) + "}}";
        fails(ErrorCode.INVALID_METADATA, SafetensorsFixture.file(eight, 0));
        String nine = "{\"__metadata__\":{\"k\":" + "[".repeat(7) + "]".repeat(7) + "}}";
        fails(ErrorCode.TOO_DEEP, SafetensorsFixture.file(nine, 0));
        fails(ErrorCode.TOO_DEEP, SafetensorsFixture.file("{\"x\":[[[[[[[[[]]]]]]]]]}", 0));
    }

    @Test
    void rule10DepthBoundFollowsThePolicy() {
        String deep = "{\"x\":" + "[".repeat(100) + "]".repeat(100) + "}";
        fails(ErrorCode.TOO_DEEP, SafetensorsFixture.file(deep, 0));
        fails(ErrorCode.INVALID_TENSOR_ENTRY, SafetensorsFixture.file(deep, 0), Limits.OFFICIAL);
        fails(ErrorCode.TOO_DEEP, SafetensorsFixture.file(deep, 0), Limits.builder().maxDepth(50).build());
    }

    @Test
    void rule11DuplicatesAreRefusedAtEveryLevelAfterUnescaping() {
        fails(ErrorCode.DUPLICATE_KEY, SafetensorsFixture.file("{\"w\":" + W + ",\"\\u0077\":" + W + "}", 1));
        fails(ErrorCode.DUPLICATE_KEY, SafetensorsFixture.file(
                "{\"w\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1));
        fails(ErrorCode.DUPLICATE_KEY, SafetensorsFixture.file(
                "{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"shape\":[1],\"data_offsets\":[0,1]}}", 1));
        fails(ErrorCode.DUPLICATE_KEY, SafetensorsFixture.file(
                "{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"data_offsets\":[0,1]}}", 1));
        fails(ErrorCode.DUPLICATE_KEY, SafetensorsFixture.file("{\"__metadata__\":{\"a\":\"1\",\"\\u0061\":\"2\"}}", 0));
        fails(ErrorCode.DUPLICATE_KEY, SafetensorsFixture.file("{\"__metadata__\":{},\"__metadata__\":{}}", 0));
        fails(ErrorCode.DUPLICATE_KEY, SafetensorsFixture.file("{\"w\":" + W + ",\"w\":" + W + "}", 1),
                Limits.OFFICIAL);
    }

    @Test
    void jsonErrorsNameTheirOffset() {
        SafetensorsException e = fails(ErrorCode.INVALID_JSON, SafetensorsFixture.file("{\"__metadata__\":{\"k\":01}}", 0));
        assertTrue(e.getMessage().contains("at header byte"), e.getMessage());
        long at = e.headerOffset().getAsLong();
        assertTrue(at >= 21 && at <= 23, e.getMessage());
    }
}
