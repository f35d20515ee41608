package dev.safetensors;

import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The 22 element types the official safetensors format names, with their size in bits. Names are
 * case-sensitive and spelled exactly as in a header ({@code "BF16"}, {@code "F8_E4M3"}).
 *
 * <p>The strict default policy accepts the 13 types in {@link #strictSet()}; {@link Limits#OFFICIAL} accepts
 * all of them. Sub-byte types ({@link #F4}, {@link #F6_E2M3}, {@link #F6_E3M2}) pack elements, so a tensor of
 * them must span a whole number of bytes.
 */
public enum DType {
    /** Boolean, one byte per element. */
    BOOL(8, true),
    /** 4-bit float (E2M1), packed. */
    F4(4, false),
    /** 6-bit float (E2M3), packed. */
    F6_E2M3(6, false),
    /** 6-bit float (E3M2), packed. */
    F6_E3M2(6, false),
    /** Unsigned 8-bit integer. */
    U8(8, true),
    /** Signed 8-bit integer. */
    I8(8, true),
    /** 8-bit float, 5 exponent bits, 2 mantissa bits (OCP FP8 E5M2). */
    F8_E5M2(8, false),
    /** 8-bit float, 4 exponent bits, 3 mantissa bits (OCP FP8 E4M3FN: no infinities, one NaN pattern). */
    F8_E4M3(8, false),
    /** 8-bit exponent-only scale (OCP MX E8M0). */
    F8_E8M0(8, false),
    /** 8-bit float E4M3, "FNUZ" variant (no negative zero, bias 8). */
    F8_E4M3FNUZ(8, false),
    /** 8-bit float E5M2, "FNUZ" variant (no negative zero, bias 16). */
    F8_E5M2FNUZ(8, false),
    /** Signed 16-bit integer. */
    I16(16, true),
    /** Unsigned 16-bit integer. */
    U16(16, true),
    /** IEEE 754 half precision. */
    F16(16, true),
    /** bfloat16: the upper half of an IEEE 754 single. */
    BF16(16, true),
    /** Signed 32-bit integer. */
    I32(32, true),
    /** Unsigned 32-bit integer. */
    U32(32, true),
    /** IEEE 754 single precision. */
    F32(32, true),
    /** IEEE 754 double precision. */
    F64(64, true),
    /** Signed 64-bit integer. */
    I64(64, true),
    /** Unsigned 64-bit integer. */
    U64(64, true),
    /** Complex number of two F32 (real, imaginary). */
    C64(64, false);

    private static final Map<String, DType> BY_NAME;
    private static final Set<DType> STRICT;
    private static final Set<DType> ALL = Collections.unmodifiableSet(EnumSet.allOf(DType.class));

    static {
        Map<String, DType> byName = new HashMap<>();
        EnumSet<DType> strict = EnumSet.noneOf(DType.class);
        for (DType t : values()) {
            byName.put(t.name(), t);
            if (t.strict) {
                strict.add(t);
            }
        }
        BY_NAME = Collections.unmodifiableMap(byName);
        STRICT = Collections.unmodifiableSet(strict);
    }

    private final int bits;
    private final boolean strict;

    DType(int bits, boolean strict) {
        this.bits = bits;
        this.strict = strict;
    }

    /** @return the size of one element in bits (4, 6, 8, 16, 32 or 64) */
    public int bits() {
        return bits;
    }

    /** @return the size of one element in whole bytes, or 0 for the packed sub-byte types */
    public int byteSize() {
        return bits % 8 == 0 ? bits / 8 : 0;
    }

    /** @return whether the strict default policy ({@link Limits#STRICT}) accepts this type */
    public boolean acceptedByDefault() {
        return strict;
    }

    /**
     * Looks a header name up, case-sensitively.
     *
     * @param name the {@code dtype} string of a header
     * @return the type, or empty for a name the format does not define
     */
    public static Optional<DType> fromName(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /** @return the 13 types the strict default policy accepts */
    public static Set<DType> strictSet() {
        return STRICT;
    }

    /** @return all 22 types */
    public static Set<DType> all() {
        return ALL;
    }
}
