package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Shorthands for the rule tests: validate in memory, expect a header or a code. */
final class HeaderAssertions {
    private HeaderAssertions() {
    }

    static SafetensorsHeader valid(byte[] file) throws IOException {
        return valid(file, Limits.DEFAULT);
    }

    static SafetensorsHeader valid(byte[] file, Limits limits) throws IOException {
        return Safetensors.readHeader("test.safetensors", file, limits);
    }

    static SafetensorsException fails(ErrorCode code, byte[] file) {
        return fails(code, file, Limits.DEFAULT);
    }

    static SafetensorsException fails(ErrorCode code, byte[] file, Limits limits) {
        SafetensorsException e = assertThrows(SafetensorsException.class,
                () -> Safetensors.readHeader("test.safetensors", file, limits));
        assertEquals(code, e.code(), e.getMessage());
        assertEquals("test.safetensors", e.source());
        return e;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
