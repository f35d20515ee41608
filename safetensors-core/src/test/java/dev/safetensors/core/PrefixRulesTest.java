package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static dev.safetensors.core.HeaderAssertions.fails;
import static dev.safetensors.core.HeaderAssertions.utf8;
import static dev.safetensors.core.HeaderAssertions.valid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rules 1 to 6: the length prefix and the first header byte. */
class PrefixRulesTest {

    @Test
    void rule1FilesShorterThanEightBytesAreInvalid() {
        fails(ErrorCode.HEADER_TOO_SMALL, new byte[0]);
        fails(ErrorCode.HEADER_TOO_SMALL, new byte[7]);
    }

    @Test
    void rule2LengthsFromTwoToTheSixtyThreeAreUnsignedNotNegative() {
        byte[] max = SafetensorsFixture.prefix(-1L);
        var e = fails(ErrorCode.HEADER_TOO_LARGE, max);
        assertTrue(e.getMessage().contains("18446744073709551615"), e.getMessage());
        var e2 = fails(ErrorCode.HEADER_TOO_LARGE, SafetensorsFixture.prefix(Long.MIN_VALUE));
        assertTrue(e2.getMessage().contains("9223372036854775808"), e2.getMessage());
    }

    @Test
    void rule3HeaderLengthIsBoundedBeforeAnythingIsAllocated() throws Exception {
        long bound = Limits.STRICT.maxHeaderBytes();
        assertEquals(8L * 1024 * 1024, bound);
        String json = "{}";
        byte[] atBound = new byte[(int) bound];
        java.util.Arrays.fill(atBound, (byte) ' ');
        System.arraycopy(utf8(json), 0, atBound, 0, 2);
        valid(SafetensorsFixture.file(atBound, new byte[0]));
        byte[] over = new byte[(int) bound + 1];
        java.util.Arrays.fill(over, (byte) ' ');
        System.arraycopy(utf8(json), 0, over, 0, 2);
        fails(ErrorCode.HEADER_TOO_LARGE, SafetensorsFixture.file(over, new byte[0]));
    }

    @Test
    void rule4HeaderLengthMustFitTheFile() {
        byte[] file = SafetensorsFixture.file("{}", 0);
        byte[] cut = java.util.Arrays.copyOf(file, file.length - 1);
        var e = fails(ErrorCode.HEADER_EXCEEDS_FILE, cut);
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @Test
    void rule5HeaderStartsWithABrace() throws Exception {
        fails(ErrorCode.HEADER_START, SafetensorsFixture.file(" {}     ", 0));
        fails(ErrorCode.HEADER_START, SafetensorsFixture.file("[]", 0));
        fails(ErrorCode.HEADER_START, SafetensorsFixture.file("", 0));
        valid(SafetensorsFixture.file(" \n{}", 0), Limits.OFFICIAL);
        fails(ErrorCode.HEADER_START, SafetensorsFixture.file("   ", 0), Limits.OFFICIAL);
    }

    @Test
    void rule6GitLfsPointersAreRecognised() {
        byte[] lfs = ("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
                .getBytes(StandardCharsets.US_ASCII);
        var e = fails(ErrorCode.NOT_SAFETENSORS, lfs);
        assertTrue(e.getMessage().contains("Git LFS pointer"), e.getMessage());
    }

    @Test
    void rule6HtmlPagesAreRecognised() {
        ByteArrayOutputStream page = new ByteArrayOutputStream();
        page.writeBytes("<!DOCTYPE html><html><body>403 Forbidden</body></html>".getBytes(StandardCharsets.US_ASCII));
        var e = fails(ErrorCode.NOT_SAFETENSORS, page.toByteArray());
        assertTrue(e.getMessage().contains("HTML"), e.getMessage());
        fails(ErrorCode.NOT_SAFETENSORS, "\n<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>"
                .getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aLegitimateLengthWhoseLowByteIsAnAngleBracketIsNotMistakenForHtml() throws Exception {
        // 60 = '<': a header of exactly 60 bytes starts with the byte '<' and must still parse
        String json = "{\"__metadata__\":{\"k\":\"" + "v".repeat(35) + "\"}}";
        byte[] header = utf8(json);
        assertEquals(60, header.length);
        valid(SafetensorsFixture.file(header, new byte[0]));
    }
}
