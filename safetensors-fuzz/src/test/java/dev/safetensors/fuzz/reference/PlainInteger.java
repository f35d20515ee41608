package dev.safetensors.fuzz.reference;

import dev.safetensors.fuzz.reference.JsonValue.JsonNumber;

import java.math.BigInteger;
import java.util.regex.Pattern;

/**
 * Rule 18's number: a plain JSON integer literal between 0 and 2^63-1, so no sign (not even {@code -0}), no fraction,
 * no exponent, and nothing larger. Judged on the literal text and compared as a big integer.
 */
final class PlainInteger {
    private static final Pattern DIGITS = Pattern.compile("0|[1-9][0-9]*");
    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private PlainInteger() {
    }

    static long of(JsonValue v, String rule, String what) {
        if (!(v instanceof JsonNumber n)) {
            throw new Rejection(rule, what + " is not a number");
        }
        if (!DIGITS.matcher(n.literal()).matches()) {
            throw new Rejection("rule 18", what + " " + n.literal() + " is not a plain integer literal");
        }
        BigInteger value = new BigInteger(n.literal());
        if (value.compareTo(MAX) > 0) {
            throw new Rejection("rule 18", what + " " + n.literal() + " is above 2^63-1");
        }
        return value.longValueExact();
    }
}
