package dev.safetensors.signing;

import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.internal.Bundle;
import dev.safetensors.signing.internal.BundleCodec;
import dev.safetensors.signing.internal.CertificateChains;
import dev.safetensors.signing.internal.Dsse;
import dev.safetensors.signing.internal.EcKeys;
import dev.safetensors.signing.internal.FulcioCertificates;
import dev.safetensors.signing.internal.KeylessCheck;
import dev.safetensors.signing.internal.ManifestCheck;
import dev.safetensors.signing.internal.ModelHasher;
import dev.safetensors.signing.internal.Signatures;
import dev.safetensors.signing.internal.StatementCodec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Verifies OMS bundles: first the signature (against a public key, a certificate chain against trusted CAs, or a
 * keyless Sigstore signature against a trusted root and an expected identity), then the model against the signed
 * manifest, hashed again with the manifest's own serialization parameters.
 *
 * <p>A signature that does not verify, a signer that is not trusted, or a bundle that cannot be read is a
 * {@link SigningException}; a model that differs from what was signed is a {@link VerificationResult} naming every
 * missing, extra and changed file ({@link VerificationResult#requireMatch()} turns it into an exception). Each
 * verifier accepts bundles of its own method only ({@link Reason#WRONG_VERIFICATION_METHOD} otherwise).
 *
 * <p>Immutable and thread-safe.
 */
public final class ModelVerifier {
    /** The largest bundle read: far above any manifest's need, well below what would strain a heap. */
    public static final int MAX_BUNDLE_BYTES = 32 << 20;

    private final Optional<PublicKey> publicKey;
    private final Set<TrustAnchor> anchors;
    private final Optional<Keyless> keyless;
    private final boolean ignoreUnsignedFiles;
    private final ModelHasher hasher;

    /** A keyless verifier's trusted root and expected signer. */
    private record Keyless(SigstoreTrustRoot root, String identity, String issuer) {
    }

    private ModelVerifier(Optional<PublicKey> publicKey, Set<TrustAnchor> anchors, Optional<Keyless> keyless,
                          boolean ignoreUnsignedFiles) {
        this.publicKey = publicKey;
        this.anchors = anchors;
        this.keyless = keyless;
        this.ignoreUnsignedFiles = ignoreUnsignedFiles;
        this.hasher = ModelHasher.perProcessor();
    }

    /**
     * A verifier of key bundles: the signature must verify with this key, and the bundle's key hint, if it has
     * one, must name it.
     *
     * @param key an EC public key on an OMS curve
     * @return the verifier
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} for another key
     */
    public static ModelVerifier withPublicKey(PublicKey key) throws SigningException {
        EcKeys.signatureAlgorithm(key);
        return new ModelVerifier(Optional.of(key), Set.of(), Optional.empty(), false);
    }

    /**
     * A verifier of certificate bundles: the bundle's chain must validate up to one of these CAs at the signing
     * certificate's notBefore (revocation is not checked), and the signing certificate must allow digital
     * signatures or code signing.
     *
     * @param trusted the trusted CA certificates
     * @return the verifier
     * @throws IllegalArgumentException if {@code trusted} is empty
     */
    public static ModelVerifier withTrustAnchors(Collection<X509Certificate> trusted) {
        Set<TrustAnchor> anchors = new HashSet<>();
        for (X509Certificate certificate : trusted) {
            anchors.add(new TrustAnchor(certificate, null));
        }
        if (anchors.isEmpty()) {
            throw new IllegalArgumentException("no trusted CA given");
        }
        return new ModelVerifier(Optional.empty(), Set.copyOf(anchors), Optional.empty(), false);
    }

    /**
     * A verifier of keyless Sigstore bundles, offline: the signing certificate must name exactly {@code identity}
     * (its email or URI subject alternative name) and {@code issuer} (the Fulcio OIDC issuer extension); every
     * Rekor entry the bundle carries must record this signature and verify against the root's log keys (signed
     * entry timestamp, inclusion proof and signed checkpoint), as must every RFC 3161 timestamp against the root's
     * timestamp authorities; and at each time they vouch for, the certificate must chain to a Fulcio CA of the
     * root. Signed certificate timestamps (certificate transparency) are not checked.
     *
     * @param root     the trusted root ({@link SigstoreTrustRoot#production()} for Sigstore's public-good instance)
     * @param identity the expected signer: an email address or a URI (a workload's identity), compared exactly
     * @param issuer   the expected OIDC issuer URL, compared exactly
     *                 ({@code https://accounts.google.com}, {@code https://token.actions.githubusercontent.com})
     * @return the verifier
     * @throws IllegalArgumentException if {@code identity} or {@code issuer} is empty
     */
    public static ModelVerifier keyless(SigstoreTrustRoot root, String identity, String issuer) {
        if (identity.isEmpty() || issuer.isEmpty()) {
            throw new IllegalArgumentException("a keyless verifier needs an identity and an issuer");
        }
        return new ModelVerifier(Optional.empty(), Set.of(),
                Optional.of(new Keyless(java.util.Objects.requireNonNull(root, "root"), identity, issuer)), false);
    }
    /**
     * @param ignore whether files the manifest does not list are accepted (by default they make the result fail)
     * @return this verifier with that policy
     */
    public ModelVerifier ignoreUnsignedFiles(boolean ignore) {
        return new ModelVerifier(publicKey, anchors, keyless, ignore);
    }

    /**
     * Verifies the bundle's signature and returns the manifest it vouches for, without looking at any model.
     *
     * @param bundle the bundle's JSON
     * @return the signed manifest
     * @throws SigningException {@link Reason#BUNDLE_TOO_LARGE}, {@link Reason#INVALID_BUNDLE},
     *                          {@link Reason#WRONG_VERIFICATION_METHOD}, {@link Reason#KEY_MISMATCH},
     *                          {@link Reason#IDENTITY_MISMATCH}, {@link Reason#UNTRUSTED_CERTIFICATE},
     *                          {@link Reason#BAD_SIGNATURE}, for keyless bundles {@link Reason#TRANSPARENCY_LOG} or
     *                          {@link Reason#TIMESTAMP}, and, once the signature holds,
     *                          {@link Reason#INVALID_STATEMENT} or {@link Reason#INCONSISTENT_MANIFEST}
     */
    public Manifest verifySignature(byte[] bundle) throws SigningException {
        if (bundle.length > MAX_BUNDLE_BYTES) {
            throw new SigningException(Reason.BUNDLE_TOO_LARGE, "the bundle is " + bundle.length
                    + " bytes, above the " + MAX_BUNDLE_BYTES + " read");
        }
        Bundle parsed = BundleCodec.read(bundle);
        if (!parsed.payloadType().equals(BundleCodec.IN_TOTO_PAYLOAD_TYPE)) {
            throw new SigningException(Reason.INVALID_BUNDLE, "the envelope's payload type is \""
                    + parsed.payloadType() + "\", not " + BundleCodec.IN_TOTO_PAYLOAD_TYPE);
        }
        PublicKey key = signerKey(parsed.material());
        byte[] signed = Dsse.pae(parsed.payloadType(), parsed.payload());
        byte[] legacy = null;
        for (byte[] signature : parsed.signatures()) {
            if (verifies(key, EcKeys.signatureAlgorithm(key), signed, signature)) {
                if (parsed.material() instanceof Bundle.Keyless k) {
                    KeylessCheck.verify(parsed, k.certificate(), signature, keyless.orElseThrow().root().root());
                }
                return StatementCodec.read(parsed.payload());
            }
            if (parsed.material() instanceof Bundle.Keyless) {
                // Sigstore clients have always signed the standard encoding
                continue;
            }
            // version 0.2 of the reference signed another encoding, always with SHA-256; accepted for its
            // predicate only
            legacy = legacy != null ? legacy : Dsse.legacyPae(parsed.payloadType(), parsed.payload());
            if (verifies(key, "SHA256withECDSA", legacy, signature) && StatementCodec.isLegacy(parsed.payload())) {
                return StatementCodec.read(parsed.payload());
            }
        }
        throw new SigningException(Reason.BAD_SIGNATURE, "no signature of the bundle verifies with the "
                + (publicKey.isPresent() ? "given public key" : "signing certificate's key"));
    }

    private static String method(Bundle.Material material) {
        if (material instanceof Bundle.KeyHint) {
            return "a bare key";
        }
        return material instanceof Bundle.Keyless ? "a keyless Sigstore (Fulcio) certificate" : "a certificate chain";
    }

    /**
     * Verifies the bundle's signature, then compares the model with the signed manifest.
     *
     * @param model       the model
     * @param bundle      the bundle's JSON
     * @param ignorePaths paths relative to the model root to leave out besides those the manifest records (the
     *                    signature file, if it lies inside the model)
     * @return how the model compares
     * @throws SigningException as {@link #verifySignature}; {@link Reason#UNSUPPORTED_ALGORITHM} for a manifest
     *                          hashed with blake3; {@link Reason#SYMLINK_REFUSED}
     * @throws IOException      if the model cannot be listed or read
     */
    public VerificationResult verify(ModelFiles model, byte[] bundle, List<String> ignorePaths) throws IOException {
        Manifest manifest = verifySignature(bundle);
        return ManifestCheck.check(model, manifest, List.copyOf(ignorePaths), ignoreUnsignedFiles, hasher);
    }

    /**
     * Verifies a local model against a bundle file; the bundle file is left out of the model if it lies inside.
     *
     * @param model         the model folder or file
     * @param signatureFile the bundle
     * @return how the model compares
     * @throws IOException as {@link #verify(ModelFiles, byte[], List)}, or if the bundle cannot be read
     */
    public VerificationResult verify(Path model, Path signatureFile) throws IOException {
        return verify(model, signatureFile, List.of());
    }

    /**
     * Verifies a local model against a bundle file, leaving out more paths than the manifest records, as the
     * reference's {@code verify --ignore-paths} does (a file signed but ignored here is then missing).
     *
     * @param model         the model folder or file
     * @param signatureFile the bundle; left out of the model if it lies inside
     * @param ignorePaths   paths relative to the model root to leave out besides those the manifest records
     * @return how the model compares
     * @throws IOException as {@link #verify(ModelFiles, byte[], List)}, or if the bundle cannot be read
     */
    public VerificationResult verify(Path model, Path signatureFile, List<String> ignorePaths) throws IOException {
        byte[] bundle = readBundle(signatureFile);
        List<String> ignored = new ArrayList<>(ignorePaths);
        ignored.addAll(inside(model, signatureFile));
        return verify(ModelFiles.of(model), bundle, ignored);
    }

    /** @return the signature file's path relative to the model folder, if it lies inside it */
    static List<String> inside(Path model, Path signatureFile) {
        Path root = model.toAbsolutePath().normalize();
        Path signature = signatureFile.toAbsolutePath().normalize();
        if (!Files.isDirectory(root) || !signature.startsWith(root) || signature.equals(root)) {
            return List.of();
        }
        return List.of(root.relativize(signature).toString().replace(root.getFileSystem().getSeparator(), "/"));
    }

    /**
     * Reads a bundle file, at most {@link #MAX_BUNDLE_BYTES}: only a regular file (a FIFO or a device would block or
     * never end), whose link, if it is one, is followed.
     *
     * @param file the bundle file
     * @return its bytes
     * @throws SigningException {@link Reason#BUNDLE_TOO_LARGE} if it is larger
     * @throws IOException      {@link dev.safetensors.ErrorCode#NOT_A_FILE} for anything but a regular file, or the
     *                          failure to read it
     */
    public static byte[] readBundle(Path file) throws IOException {
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new dev.safetensors.StorageException(dev.safetensors.ErrorCode.NOT_A_FILE, file.toString(),
                    "is not a regular file: a signature bundle is read from a file");
        }
        return readBounded(file);
    }

    private static byte[] readBounded(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_BUNDLE_BYTES + 1);
            if (bytes.length > MAX_BUNDLE_BYTES) {
                throw new SigningException(Reason.BUNDLE_TOO_LARGE, file + " is larger than the "
                        + MAX_BUNDLE_BYTES + " bytes a bundle may have");
            }
            return bytes;
        }
    }

    private PublicKey signerKey(Bundle.Material material) throws SigningException {
        if (keyless.isPresent()) {
            if (!(material instanceof Bundle.Keyless k)) {
                throw new SigningException(Reason.WRONG_VERIFICATION_METHOD, "the bundle is signed with "
                        + method(material) + ", but this verifier expects a keyless Sigstore signature");
            }
            FulcioCertificates.requireIdentity(k.certificate(), keyless.get().identity(), keyless.get().issuer());
            PublicKey key = k.certificate().getPublicKey();
            EcKeys.signatureAlgorithm(key);
            return key;
        }
        if (material instanceof Bundle.KeyHint hint) {
            PublicKey key = publicKey.orElseThrow(() -> new SigningException(Reason.WRONG_VERIFICATION_METHOD,
                    "the bundle is signed with a bare key, but this verifier trusts certificate authorities"));
            if (hint.hint().isPresent() && !hint.hint().get().equals(SigningKeys.hint(key))) {
                throw new SigningException(Reason.KEY_MISMATCH, "the bundle names key " + hint.hint().get()
                        + ", not the given key " + SigningKeys.hint(key));
            }
            return key;
        }
        if (material instanceof Bundle.CertificateChain chain) {
            if (publicKey.isPresent()) {
                throw new SigningException(Reason.WRONG_VERIFICATION_METHOD, "the bundle is signed with a "
                        + "certificate, but this verifier was given a public key");
            }
            PublicKey key = CertificateChains.validate(chain.certificates(), anchors);
            EcKeys.signatureAlgorithm(key);
            return key;
        }
        throw new SigningException(Reason.WRONG_VERIFICATION_METHOD, "the bundle is signed with " + method(material)
                + ": verify it as keyless, with an identity and an issuer");
    }

    private static boolean verifies(PublicKey key, String algorithm, byte[] signed, byte[] signature)
            throws SigningException {
        return Signatures.verifies(key, algorithm, signed, signature, Reason.UNSUPPORTED_KEY);
    }

    @Override
    public String toString() {
        if (keyless.isPresent()) {
            return "ModelVerifier[keyless " + keyless.get().identity() + " from " + keyless.get().issuer() + ", "
                    + keyless.get().root() + "]";
        }
        return publicKey.map(k -> "ModelVerifier[key " + SigningKeys.hint(k) + "]")
                .orElse("ModelVerifier[" + anchors.size() + " trusted CAs]");
    }
}
