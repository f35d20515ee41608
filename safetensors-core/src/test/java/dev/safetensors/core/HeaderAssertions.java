package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Shorthands for the rule tests: validate in memory, expect a header or a code. */
final class HeaderAssertions {
    private HeaderAssertions() {
    }

    static SafetensorsHeader valid(byte[] file) throws IOException {
        return valid(file, Limits.STRICT);
    }

    /**
     * Reads a file that must pass, and checks what passing means rather than only that nothing was thrown: the
     * sizes add up to the file, and the tensors tile the payload exactly (rule 21).
     */
    static SafetensorsHeader valid(byte[] file, Limits limits) throws IOException {
        SafetensorsHeader h = Safetensors.readHeader("test.safetensors", file, limits);
        assertEquals(file.length, h.fileSize(), "file size");
        assertEquals(file.length, 8 + h.headerLength() + h.payloadLength(), "prefix + header + payload");
        assertEquals(8 + h.headerLength(), h.payloadOffset(), "payload offset");
        long tensorBytes = h.tensors().stream().mapToLong(TensorInfo::byteLength).sum();
        assertEquals(h.payloadLength(), tensorBytes, "the tensors tile the payload");
        assertEquals(h.tensors().size(), h.tensors().stream().map(TensorInfo::name).distinct().count(),
                "tensor names are unique");
        return h;
    }

    static SafetensorsException fails(ErrorCode code, byte[] file) {
        return fails(code, file, Limits.STRICT);
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
