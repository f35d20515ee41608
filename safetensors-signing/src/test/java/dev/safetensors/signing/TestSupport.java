package dev.safetensors.signing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;

/** Models, keys and resources the signing tests share. */
final class TestSupport {
    private TestSupport() {
    }

    static KeyPair ecKeys(String curve) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec(curve));
        return generator.generateKeyPair();
    }

    static Path write(Path root, String relative, String content) throws IOException {
        return write(root, relative, content.getBytes(StandardCharsets.UTF_8));
    }

    static Path write(Path root, String relative, byte[] content) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.write(file, content);
    }

    /** A small model with nested folders, a git folder the defaults ignore, and an empty file. */
    static Path model(Path dir) throws IOException {
        Path model = dir.resolve("my-model");
        write(model, "config.json", "{\"layers\": 2}");
        write(model, "weights/model-00001.bin", bytes(5000, 1));
        write(model, "weights/model-00002.bin", bytes(3001, 2));
        write(model, "a.b", "dotted");
        write(model, "a/b", "nested");
        write(model, "empty.txt", new byte[0]);
        write(model, ".git/HEAD", "ref: refs/heads/main");
        return model;
    }

    static byte[] bytes(int length, int seed) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = (byte) (i * 31 + seed);
        }
        return out;
    }

    static String resource(String name) throws IOException {
        try (InputStream in = TestSupport.class.getResourceAsStream("/" + name)) {
            if (in == null) {
                throw new IOException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static byte[] resourceBytes(String name) throws IOException {
        return resource(name).getBytes(StandardCharsets.UTF_8);
    }
}
