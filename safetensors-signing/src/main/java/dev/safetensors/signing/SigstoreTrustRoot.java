package dev.safetensors.signing;

import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.internal.TrustedRoot;
import dev.safetensors.signing.internal.TrustedRootCodec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Sigstore trusted root: the Fulcio certificate authorities, Rekor transparency logs and RFC 3161 timestamp
 * authorities a keyless signature is verified against, each with the period it may be relied on. Verification
 * never fetches it: {@link #production()} is a copy shipped in this library, dated in its resource name and in
 * {@link #PRODUCTION_DATE}; a newer root (after a key rotation), or another instance's such as Sigstore's staging
 * one, is given with {@link #read(Path)}.
 *
 * <p>Immutable and thread-safe.
 */
public final class SigstoreTrustRoot {
    /**
     * When the shipped public-good root last changed in Sigstore's root-signing repository (the same bytes as the
     * {@code trusted_root.json} seed of the {@code @sigstore/tuf} 4.0.2 and 5.0.1 packages).
     */
    public static final String PRODUCTION_DATE = "2025-09-22";

    private static final int MAX_BYTES = 4 << 20;

    private final TrustedRoot root;
    private final String name;

    private SigstoreTrustRoot(TrustedRoot root, String name) {
        this.root = root;
        this.name = name;
    }

    /**
     * @return Sigstore's public-good root ({@code fulcio.sigstore.dev}, {@code rekor.sigstore.dev},
     *         {@code timestamp.sigstore.dev}), as of {@link #PRODUCTION_DATE}
     */
    public static SigstoreTrustRoot production() {
        return shipped("sigstore-public-good-trusted-root-" + PRODUCTION_DATE + ".json", "public-good");
    }

    /**
     * @param json a {@code trusted_root.json} document
     * @return the root it describes
     * @throws SigningException {@link Reason#INVALID_TRUST_ROOT} if it is not a trusted root that can be used
     */
    public static SigstoreTrustRoot parse(byte[] json) throws SigningException {
        return new SigstoreTrustRoot(TrustedRootCodec.read(json), "given");
    }

    /**
     * @param file a {@code trusted_root.json} file, at most 4 MiB
     * @return the root it describes
     * @throws SigningException {@link Reason#INVALID_TRUST_ROOT} if it is not a trusted root that can be used
     * @throws IOException      if the file cannot be read
     */
    public static SigstoreTrustRoot read(Path file) throws IOException {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        }
        if (bytes.length > MAX_BYTES) {
            throw new SigningException(Reason.INVALID_TRUST_ROOT, file + " is larger than a trusted root");
        }
        return new SigstoreTrustRoot(TrustedRootCodec.read(bytes), file.toString());
    }

    private static SigstoreTrustRoot shipped(String resource, String name) {
        try (InputStream in = SigstoreTrustRoot.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the library lacks its resource " + resource);
            }
            return new SigstoreTrustRoot(TrustedRootCodec.read(in.readAllBytes()), name);
        } catch (SigningException e) {
            throw new IllegalStateException("the shipped trusted root " + resource + " does not read", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    TrustedRoot root() {
        return root;
    }

    @Override
    public String toString() {
        return "SigstoreTrustRoot[" + name + "]";
    }
}
