package dev.safetensors.signing;

import java.util.List;
import java.util.Objects;

/**
 * How a model compares with the manifest its verified signature vouches for. The signature itself has already been
 * checked when a result exists: a bad signature is a {@link SigningException}, never a result.
 *
 * @param manifest   the signed manifest
 * @param missing    files the manifest lists that the model lacks
 * @param extra      files of the model the manifest does not list (always empty when unsigned files are ignored)
 * @param mismatched files whose bytes (or, for shards, whose length) differ from what was signed
 */
public record VerificationResult(Manifest manifest, List<String> missing, List<String> extra,
                                 List<String> mismatched) {
    /**
     * Checks that no component is {@code null}.
     *
     * @param manifest the signed manifest
     * @param missing files listed but absent
     * @param extra files present but not listed
     * @param mismatched files whose bytes differ
     * @throws NullPointerException if a component is {@code null}
     */
    public VerificationResult {
        Objects.requireNonNull(manifest, "manifest");
        missing = List.copyOf(missing);
        extra = List.copyOf(extra);
        mismatched = List.copyOf(mismatched);
    }

    /** @return whether the model is exactly what was signed: nothing missing, extra or changed */
    public boolean matches() {
        return missing.isEmpty() && extra.isEmpty() && mismatched.isEmpty();
    }

    /**
     * @return this result, if the model matches
     * @throws SigningException {@link SigningException.Reason#MODEL_MISMATCH}, naming what differs, if not
     */
    public VerificationResult requireMatch() throws SigningException {
        if (!matches()) {
            throw new SigningException(SigningException.Reason.MODEL_MISMATCH, "the model differs from its "
                    + "signed manifest: missing " + missing + ", extra " + extra + ", changed " + mismatched);
        }
        return this;
    }
}
