package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;

import java.io.IOException;
import java.util.Objects;

/**
 * A signature could not be made or verified. {@link #reason()} says precisely why; {@link #code()} gives the
 * nearest {@link ErrorCode} of the library's shared vocabulary, so tools that branch on codes handle it like any
 * other failure. Messages are for people: match on {@link #reason()}, never on text.
 */
public final class SigningException extends IOException implements ErrorCoded {
    private static final long serialVersionUID = 1L;

    /** Why signing or verification failed. Stable: tools may match on it. */
    public enum Reason {
        /** The bundle is not JSON, not a Sigstore bundle, or misses a field the format requires. */
        INVALID_BUNDLE(ErrorCode.INVALID_SIGNATURE_BUNDLE),
        /** The bundle is larger than {@link ModelVerifier#MAX_BUNDLE_BYTES}. */
        BUNDLE_TOO_LARGE(ErrorCode.INVALID_SIGNATURE_BUNDLE),
        /** The signed payload is not an in-toto statement with an OMS predicate, or its manifest is malformed. */
        INVALID_STATEMENT(ErrorCode.INVALID_SIGNATURE_BUNDLE),
        /** The manifest's subject digest differs from the digest of its resources in the order listed. */
        INCONSISTENT_MANIFEST(ErrorCode.INVALID_SIGNATURE_BUNDLE),
        /** The signature does not verify with the key: wrong key, or altered payload. */
        BAD_SIGNATURE(ErrorCode.BAD_SIGNATURE),
        /** The bundle names another key than the one given (its {@code publicKey.hint} differs). */
        KEY_MISMATCH(ErrorCode.UNTRUSTED_SIGNER),
        /**
         * The certificate chain does not lead to a trusted CA, or the leaf may not sign; for a keyless bundle, the
         * Fulcio certificate does not chain to a CA of the trusted root valid at the verified signing time.
         */
        UNTRUSTED_CERTIFICATE(ErrorCode.UNTRUSTED_SIGNER),
        /** The bundle's verification material does not fit the verifier (a key bundle for a CA verifier, say). */
        WRONG_VERIFICATION_METHOD(ErrorCode.UNTRUSTED_SIGNER),
        /**
         * A keyless signing certificate names another identity (email or URI) or OIDC issuer than the expected
         * ones.
         */
        IDENTITY_MISMATCH(ErrorCode.UNTRUSTED_SIGNER),
        /**
         * A keyless bundle's transparency-log entry does not prove this signature was logged: a log missing from
         * the trusted root, a body recording another signature, a signed entry timestamp or an inclusion proof that
         * does not verify, or no entry at all.
         */
        TRANSPARENCY_LOG(ErrorCode.UNTRUSTED_SIGNER),
        /** A keyless bundle's RFC 3161 timestamp does not stamp its signature, or no trusted authority signed it. */
        TIMESTAMP(ErrorCode.UNTRUSTED_SIGNER),
        /** A Sigstore trusted root that cannot be read or used. */
        INVALID_TRUST_ROOT(ErrorCode.UNSUPPORTED_SIGNATURE),
        /** A hash algorithm or serialization method this implementation does not compute. */
        UNSUPPORTED_ALGORITHM(ErrorCode.UNSUPPORTED_SIGNATURE),
        /** A key that is not an ECDSA key on P-256, P-384 or P-521, or a PEM that holds no usable key. */
        UNSUPPORTED_KEY(ErrorCode.UNSUPPORTED_SIGNATURE),
        /** A symbolic link in the model while symbolic links are not allowed, or one that loops. */
        SYMLINK_REFUSED(ErrorCode.NOT_A_FILE),
        /** The model holds no file to sign once ignored paths are left out. */
        EMPTY_MODEL(ErrorCode.NOT_FOUND),
        /** The model's files differ from the signed manifest (see {@link VerificationResult#requireMatch()}). */
        MODEL_MISMATCH(ErrorCode.SHA256_MISMATCH);

        private final ErrorCode code;

        Reason(ErrorCode code) {
            this.code = code;
        }

        /** @return the shared code this reason is reported with */
        public ErrorCode code() {
            return code;
        }
    }

    /** @serial why it failed */
    private final Reason reason;

    /**
     * @param reason why it failed
     * @param detail what happened, in words
     */
    public SigningException(Reason reason, String detail) {
        this(reason, detail, null);
    }

    /**
     * @param reason why it failed
     * @param detail what happened, in words
     * @param cause  the JDK's failure behind it, or {@code null}
     */
    public SigningException(Reason reason, String detail, Throwable cause) {
        super(Objects.requireNonNull(reason, "reason") + ": " + detail, cause);
        this.reason = reason;
    }

    /** @return why it failed */
    public Reason reason() {
        return reason;
    }

    @Override
    public ErrorCode code() {
        return reason.code();
    }
}
