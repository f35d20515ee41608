package dev.safetensors.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How a writer lays out tensors in the payload. The payload must hold the tensors back to back with no gap (rule 21
 * of {@code RULES.md}, and the official format), so alignment comes only from the order of the tensors and from
 * spaces after the header JSON, which the format allows.
 *
 * <ul>
 *   <li>{@link #INSERTION_ORDER} (the default): tensors in the order they were added, header padded to 8 bytes.</li>
 *   <li>{@link #DTYPE}: tensors ordered by element size, largest first (ties keep the order they were added), header
 *       padded to 8 bytes. Every tensor then starts at a file offset that is a multiple of its element size. (The
 *       official writer sorts by dtype, then by name: the same guarantee, with another order.)</li>
 *   <li>{@link #bytes(int) bytes(N)}: the header is padded so the payload starts at a multiple of N, and the tensors
 *       whose byte length is a multiple of N come first (by element size, largest first), then the others (by
 *       element size). Every tensor of the first group starts at a multiple of N; the first tensor of the second
 *       group does too; the rest start at multiples of their element size, and at a multiple of N only if the
 *       lengths before them happen to add up to one. No ordering can do better without gaps, which the format
 *       forbids.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class Alignment {
    /** Tensors in the order they were added; the header padded to a multiple of 8 bytes. */
    public static final Alignment INSERTION_ORDER = new Alignment(8, false, false);
    /** Tensors by element size, largest first; every tensor starts at a multiple of its element size. */
    public static final Alignment DTYPE = new Alignment(8, true, false);

    /** The largest N of {@link #bytes(int)}: the header padding is at most N - 1 spaces. */
    public static final int MAX_BYTES = 1 << 20;

    private final int multiple;
    private final boolean ordered;
    private final boolean wholeFirst;

    private Alignment(int multiple, boolean ordered, boolean wholeFirst) {
        this.multiple = multiple;
        this.ordered = ordered;
        this.wholeFirst = wholeFirst;
    }

    /**
     * @param n the alignment in bytes: a power of two from 8 to {@link #MAX_BYTES} (64 suits most SIMD loads)
     * @return the layout that starts the payload and as many tensors as possible at multiples of {@code n}
     * @throws IllegalArgumentException if {@code n} is out of range or not a power of two
     */
    public static Alignment bytes(int n) {
        if (n < 8 || n > MAX_BYTES || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two from 8 to " + MAX_BYTES + ", was "
                    + n);
        }
        return new Alignment(n, true, true);
    }

    /** @return the multiple of bytes the payload starts at */
    public int payloadMultiple() {
        return multiple;
    }

    /** @return the entries in payload order */
    List<WriterEntry> order(List<WriterEntry> entries) {
        if (!ordered) {
            return List.copyOf(entries);
        }
        Comparator<WriterEntry> bySize = Comparator.comparingInt((WriterEntry e) -> e.dtype().bits()).reversed();
        List<WriterEntry> whole = new ArrayList<>();
        List<WriterEntry> rest = new ArrayList<>();
        for (WriterEntry e : entries) {
            (!wholeFirst || e.byteLength() % multiple == 0 ? whole : rest).add(e);
        }
        whole.sort(bySize);
        rest.sort(bySize);
        whole.addAll(rest);
        return List.copyOf(whole);
    }

    @Override
    public String toString() {
        return this == INSERTION_ORDER ? "insertion order" : this == DTYPE ? "dtype" : multiple + " bytes";
    }
}
