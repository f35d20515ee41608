package dev.safetensors.core;

import dev.safetensors.fixtures.SafetensorsFixture;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files for the tensor-read tests: fixtures with a chosen payload, and sparse files for huge tensors. */
final class TensorFiles {
    private TensorFiles() {
    }

    /** @return a file whose header is {@code fixture}'s and whose payload is {@code payload} */
    static byte[] withPayload(SafetensorsFixture fixture, byte[] payload) {
        return SafetensorsFixture.file(fixture.headerJson().getBytes(StandardCharsets.UTF_8), payload);
    }

    /**
     * Writes {@code fixture}'s header and extends the file to the payload its tensors need without writing it: the
     * file system stores a hole, so a multi-GiB tensor costs no disk and reads as zeros.
     */
    static Path sparse(Path dir, SafetensorsFixture fixture, long payloadLength) throws IOException {
        Path file = dir.resolve("sparse.safetensors");
        byte[] header = fixture.headerJson().getBytes(StandardCharsets.UTF_8);
        Files.write(file, SafetensorsFixture.file(header, new byte[0]));
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(8L + header.length + payloadLength);
        }
        return file;
    }
}
