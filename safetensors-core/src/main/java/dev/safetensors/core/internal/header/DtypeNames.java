package dev.safetensors.core.internal.header;

import dev.safetensors.DType;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** The dtype names as the header's bytes spell them, indexed by {@link DType#ordinal()}, for the header readers. */
public final class DtypeNames {
    /** Every dtype, in ordinal order. */
    static final DType[] DTYPES = DType.values();
    /** Each dtype's name in ASCII, parallel to {@link #DTYPES}. */
    static final byte[][] ASCII = Arrays.stream(DTYPES).map(t -> t.name().getBytes(StandardCharsets.US_ASCII))
            .toArray(byte[][]::new);

    private DtypeNames() {
    }
}
