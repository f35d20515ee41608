package dev.safetensors.signing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;

/** A signature made by {@link ModelSigner}: the Sigstore bundle JSON and the manifest it signs. Immutable. */
public final class ModelSignature {
    private final Manifest manifest;
    private final byte[] bundle;

    ModelSignature(Manifest manifest, byte[] bundle) {
        this.manifest = Objects.requireNonNull(manifest, "manifest");
        this.bundle = bundle.clone();
    }

    /** @return the manifest the bundle signs */
    public Manifest manifest() {
        return manifest;
    }

    /** @return the bundle's JSON bytes (a copy), what is stored as {@code model.sig} */
    public byte[] bundle() {
        return bundle.clone();
    }

    /**
     * Writes the bundle to a file, through a temporary file in the same folder so a reader never sees half a
     * bundle.
     *
     * @param file where to write it; replaced if it exists
     * @throws IOException if it cannot be written
     */
    public void writeTo(Path file) throws IOException {
        Path target = file.toAbsolutePath();
        Path temporary = Files.createTempFile(target.getParent(), ".model-signature", ".tmp");
        try {
            Files.write(temporary, bundle);
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
