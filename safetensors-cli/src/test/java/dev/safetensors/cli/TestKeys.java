package dev.safetensors.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;

/**
 * A fresh ECDSA P-256 key pair written as PEM files, as {@code sign --key K --public-key P} reads them: the JDK's
 * PKCS#8 encoding carries no public key, so it gets a file of its own.
 *
 * @param privateKey the {@code PRIVATE KEY} PEM
 * @param publicKey  the {@code PUBLIC KEY} PEM
 */
record TestKeys(Path privateKey, Path publicKey) {

    /**
     * @param dir  where the files go
     * @param name the files' name before {@code .pem} and {@code .pub.pem}
     * @return the files
     */
    static TestKeys write(Path dir, String name) throws java.io.IOException, GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair keys = generator.generateKeyPair();
        return new TestKeys(pem(dir.resolve(name + ".pem"), "PRIVATE KEY", keys.getPrivate().getEncoded()),
                pem(dir.resolve(name + ".pub.pem"), "PUBLIC KEY", keys.getPublic().getEncoded()));
    }

    private static Path pem(Path file, String type, byte[] der) throws java.io.IOException {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
    }
}
