package dev.safetensors.fuzz.reference;

/**
 * The three answers a header check can give. The validator's {@code UnsupportedDtypeException} is
 * {@link #UNSUPPORTED}, every other {@code SafetensorsException} about the content is {@link #INVALID}.
 */
public enum Verdict {
    /** Every rule holds and every dtype is in the policy. */
    VALID,
    /** Every rule holds, but a dtype is outside the policy. */
    UNSUPPORTED,
    /** A rule is broken. */
    INVALID
}
