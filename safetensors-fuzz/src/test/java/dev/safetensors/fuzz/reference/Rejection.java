package dev.safetensors.fuzz.reference;

/**
 * The reference checker's "no": which rule of {@code RULES.md} (or which clause of the shard index contract) the
 * input breaks, in words. Unchecked and without a stack trace, because the reference uses it for control flow only.
 */
public final class Rejection extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String rule;

    Rejection(String rule, String reason) {
        super(rule + ": " + reason, null, false, false);
        this.rule = rule;
    }

    /** @return the rule, such as {@code "rule 21"} */
    public String rule() {
        return rule;
    }
}
