package dev.safetensors.signing.internal;

import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.function.Supplier;

/** The resource digests of OMS's algorithm registry that are computed here: {@code sha256} and {@code blake2b}. */
public final class HashAlgorithms {
    private HashAlgorithms() {
    }

    /**
     * @param hashType a serialization's hash type
     * @return a maker of fresh digests of that algorithm
     * @throws SigningException {@link Reason#UNSUPPORTED_ALGORITHM} for {@code blake3} (not supported yet) or a name
     *                          OMS does not define
     */
    public static Supplier<MessageDigest> of(String hashType) throws SigningException {
        switch (hashType) {
            case Serialization.SHA256:
                return HashAlgorithms::sha256;
            case Serialization.BLAKE2B:
                return Blake2b::new;
            case "blake3":
                throw new SigningException(Reason.UNSUPPORTED_ALGORITHM,
                        "hash type \"blake3\" is not supported yet: only sha256 and blake2b are computed here");
            default:
                throw new SigningException(Reason.UNSUPPORTED_ALGORITHM, "hash type \"" + hashType
                        + "\" is not an OMS hash algorithm");
        }
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
