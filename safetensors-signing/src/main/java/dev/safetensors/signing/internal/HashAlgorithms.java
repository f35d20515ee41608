package dev.safetensors.signing.internal;

import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.function.Supplier;

/** The resource digests of OMS's algorithm registry: {@code sha256}, {@code blake2b} and {@code blake3}. */
public final class HashAlgorithms {
    private HashAlgorithms() {
    }

    /**
     * The digest a manifest's resources were hashed with, for verifying: every serialization OMS defines, including
     * {@code blake3} shards, which the spec allows though the reference implementation does not write them.
     *
     * @param hashType a serialization's hash type
     * @return a maker of fresh digests of that algorithm
     * @throws SigningException {@link Reason#UNSUPPORTED_ALGORITHM} for a name OMS does not define
     */
    public static Supplier<MessageDigest> of(String hashType) throws SigningException {
        switch (hashType) {
            case Serialization.SHA256:
                return HashAlgorithms::sha256;
            case Serialization.BLAKE2B:
                return Blake2b::new;
            case Serialization.BLAKE3:
                return Blake3::new;
            default:
                throw new SigningException(Reason.UNSUPPORTED_ALGORITHM, "hash type \"" + hashType
                        + "\" is not an OMS hash algorithm");
        }
    }

    /**
     * The digest to sign with, refusing what the reference implementation could not verify: it signs {@code blake3}
     * with the {@code files} serialization only (asked for shards, it hashes whole files), and its verifier re-hashes
     * a {@code blake3} manifest file by file, so {@code blake3} shards would never verify there.
     *
     * @param serialization how the model is to be hashed
     * @return a maker of fresh digests of its algorithm
     * @throws SigningException {@link Reason#UNSUPPORTED_ALGORITHM} for a name OMS does not define, or {@code blake3}
     *                          with the {@code shards} serialization
     */
    public static Supplier<MessageDigest> forSigning(Serialization serialization) throws SigningException {
        if (serialization.hashType().equals(Serialization.BLAKE3)
                && serialization.method() == Serialization.Method.SHARDS) {
            throw new SigningException(Reason.UNSUPPORTED_ALGORITHM, "blake3 is signed with the files serialization"
                    + " only, as the reference implementation signs it (its verifier cannot check blake3 shards):"
                    + " sign without shards, or with sha256 or blake2b shards");
        }
        return of(serialization.hashType());
    }

    /** @return a fresh SHA-256, which every JDK has */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
