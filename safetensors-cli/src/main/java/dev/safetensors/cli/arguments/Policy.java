package dev.safetensors.cli.arguments;

import dev.safetensors.Limits;

/** The {@code --policy} choices: the validation presets of {@link Limits}. */
enum Policy {
    /** {@link Limits#STRICT}: the strict rules. */
    STRICT(Limits.STRICT),
    /**
     * {@link Limits#OFFICIAL}: the official Rust crate's bounds and dtypes; duplicate keys and unknown tensor fields
     * stay refused.
     */
    OFFICIAL(Limits.OFFICIAL);

    private final Limits limits;

    Policy(Limits limits) {
        this.limits = limits;
    }

    /** @return the preset */
    Limits limits() {
        return limits;
    }
}
