package dev.safetensors.signing;

import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.internal.BundleCodec;
import dev.safetensors.signing.internal.Dsse;
import dev.safetensors.signing.internal.EcKeys;
import dev.safetensors.signing.internal.ManifestBuilder;
import dev.safetensors.signing.internal.ModelHasher;
import dev.safetensors.signing.internal.StatementCodec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Signs models in the OMS v1.0 format with an ECDSA key (P-256 with SHA-256, P-384 with SHA-384, P-521 with
 * SHA-512). A key signer's bundle names its key by fingerprint ({@code publicKey.hint}); a certificate signer's
 * bundle carries the chain ({@code x509CertificateChain}, leaf first), as the reference implementation writes them.
 *
 * <p>Immutable and thread-safe. Files are hashed by one worker per processor, each with one 1 MiB buffer.
 */
public final class ModelSigner {
    private final PrivateKey privateKey;
    private final Optional<PublicKey> hintKey;
    private final List<X509Certificate> chain;
    private final ModelHasher hasher;

    private ModelSigner(PrivateKey privateKey, Optional<PublicKey> hintKey, List<X509Certificate> chain) {
        this.privateKey = privateKey;
        this.hintKey = hintKey;
        this.chain = chain;
        this.hasher = ModelHasher.perProcessor();
    }

    /**
     * A signer whose bundles a verifier checks against the public key ({@link ModelVerifier#withPublicKey}).
     *
     * @param keys an EC key pair on an OMS curve ({@link SigningKeys#readKeyPair} reads one from PEM)
     * @return the signer
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} for another key, or a public key that is not the
     *                          private key's
     */
    public static ModelSigner withKey(KeyPair keys) throws SigningException {
        requireSameKey(keys.getPrivate(), keys.getPublic(), "the public key");
        return new ModelSigner(keys.getPrivate(), Optional.of(keys.getPublic()), List.of());
    }

    /**
     * A signer whose bundles a verifier checks against trusted CAs ({@link ModelVerifier#withTrustAnchors}).
     *
     * @param privateKey the signing key, an EC key on an OMS curve
     * @param chain      the signing certificate first, then the intermediates up to (optionally) the root
     * @return the signer
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} for another key, an empty chain, or a leaf
     *                          certificate that is not the key's
     */
    public static ModelSigner withCertificateChain(PrivateKey privateKey, List<X509Certificate> chain)
            throws SigningException {
        List<X509Certificate> copy = List.copyOf(chain);
        if (copy.isEmpty()) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "the certificate chain is empty");
        }
        requireSameKey(privateKey, copy.get(0).getPublicKey(), "the signing certificate's key");
        return new ModelSigner(privateKey, Optional.empty(), copy);
    }

    /**
     * Hashes and signs a model.
     *
     * @param model         the model
     * @param serialization how to hash it; its ignore paths, with the defaults, are recorded in the manifest
     * @return the signature
     * @throws SigningException {@link Reason#EMPTY_MODEL} if no file is left to sign,
     *                          {@link Reason#UNSUPPORTED_ALGORITHM} for a hash OMS does not define, or blake3
     *                          with shards (which the reference implementation cannot verify),
     *                          {@link Reason#SYMLINK_REFUSED} for a symbolic link the serialization does not allow
     * @throws IOException      if the model cannot be listed or read
     */
    public ModelSignature sign(ModelFiles model, Serialization serialization) throws IOException {
        return sign(model, serialization, List.of());
    }

    /**
     * Signs a local model and writes the bundle. A signature file inside the model folder is left out of the
     * manifest, and recorded among its ignore paths so a verifier leaves it out too.
     *
     * @param model         the model folder or file
     * @param signatureFile where to write the bundle (conventionally {@code model.sig})
     * @param serialization how to hash the model
     * @return the signature written
     * @throws IOException as {@link #sign(ModelFiles, Serialization)}, or if the bundle cannot be written
     */
    public ModelSignature sign(Path model, Path signatureFile, Serialization serialization) throws IOException {
        ModelFiles files = ModelFiles.of(model);
        ModelSignature signature = sign(files, serialization, ModelVerifier.inside(model, signatureFile));
        signature.writeTo(signatureFile);
        return signature;
    }

    private ModelSignature sign(ModelFiles model, Serialization serialization, List<String> alsoIgnored)
            throws IOException {
        Objects.requireNonNull(serialization, "serialization");
        Manifest manifest = ManifestBuilder.build(model, serialization, alsoIgnored, hasher);
        byte[] payload = StatementCodec.write(manifest);
        byte[] signature = signature(privateKey, Dsse.pae(BundleCodec.IN_TOTO_PAYLOAD_TYPE, payload));
        byte[] bundle = BundleCodec.write(payload, signature, hintKey.map(SigningKeys::hint), chain);
        return new ModelSignature(manifest, bundle);
    }

    private static byte[] signature(PrivateKey key, byte[] message) throws SigningException {
        try {
            Signature s = Signature.getInstance(EcKeys.signatureAlgorithm(key));
            s.initSign(key);
            s.update(message);
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "the JDK cannot sign with this key", e);
        }
    }

    /** A key pair is checked by use: the JDK cannot derive an EC public key from its private key. */
    private static void requireSameKey(PrivateKey privateKey, PublicKey publicKey, String what)
            throws SigningException {
        byte[] probe = "safetensors-signing key check".getBytes(StandardCharsets.US_ASCII);
        byte[] signed = signature(privateKey, probe);
        try {
            Signature s = Signature.getInstance(EcKeys.signatureAlgorithm(publicKey));
            s.initVerify(publicKey);
            s.update(probe);
            if (s.verify(signed)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, what + " cannot verify", e);
        }
        throw new SigningException(Reason.UNSUPPORTED_KEY, what + " does not belong to the private key");
    }
}
