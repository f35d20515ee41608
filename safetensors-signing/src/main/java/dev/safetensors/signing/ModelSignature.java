package dev.safetensors.signing;

import dev.safetensors.core.AtomicFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
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
     * Writes the bundle to a file atomically (core's {@link AtomicFile}): a reader sees the old file or the whole
     * bundle, never a part of it.
     *
     * @param file where to write it; replaced if it exists
     * @throws IOException if it cannot be written
     */
    public void writeTo(Path file) throws IOException {
        try (AtomicFile out = AtomicFile.replacing(file)) {
            ByteBuffer bytes = ByteBuffer.wrap(bundle);
            while (bytes.hasRemaining()) {
                out.channel().write(bytes);
            }
            out.commit();
        }
    }
}
