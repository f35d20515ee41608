package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.cli.output.Sanitized;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a key or certificate file given on the command line: a regular local file of at most 1 MiB. */
final class Pem {
    /** No key, certificate or chain file is larger. */
    static final int MAX_BYTES = 1 << 20;

    private Pem() {
    }

    /**
     * @param file the file as given
     * @return its text
     * @throws IOException {@link ErrorCode#NOT_A_FILE} for a folder, a FIFO or a device; {@link ErrorCode#INVALID_SOURCE}
     *                     for one larger than {@value #MAX_BYTES} bytes; the failure to read it
     */
    static String read(String file) throws IOException {
        dev.safetensors.Location at = dev.safetensors.Location.parse(file);
        if (!at.isLocal() || at.looksLikeUri() && at.uri().isEmpty()) {
            throw new dev.safetensors.InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, Sanitized.line(file, 200)
                    + ": keys and certificates are read from local files");
        }
        Path path;
        try {
            path = at.path();
        } catch (IllegalArgumentException e) {
            throw new dev.safetensors.InvalidLocationException(ErrorCode.INVALID_SOURCE, Sanitized.line(file, 200)
                    + ": is not a path of this file system");
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            throw new StorageException(ErrorCode.NOT_A_FILE, file, "is not a regular file: a PEM is read from a file");
        }
        try (InputStream in = Files.newInputStream(path)) {
            byte[] bytes = in.readNBytes(MAX_BYTES + 1);
            if (bytes.length > MAX_BYTES) {
                throw new StorageException(ErrorCode.INVALID_SOURCE, file, "is larger than the " + MAX_BYTES
                        + " bytes a PEM key or certificate file may have");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
