package dev.safetensors.core.internal.header;

import java.util.function.IntFunction;

/**
 * Duplicate detection for a header's root names (rule 11) in one array of primitives: each slot holds a name's
 * {@link NameHash} and an opaque reference by which the caller can return the name itself.
 *
 * <p>Why not a {@code HashSet<String>}: above 49,152 names its table is an array of 131,072 references, a humongous
 * object in G1's default 1 MB regions, plus one node object per name; neither can be reclaimed by a young
 * collection, and validating a 50,000-tensor header spent more time collecting than parsing. A {@code long[]} holds no
 * references, so the collector never scans it, and a humongous primitive array is reclaimed at the next young
 * collection. The names stay where the caller keeps them anyway (its tensor list), so the table adds 8 bytes per
 * slot and nothing per name.
 *
 * <p>Lookup and insertion are separate, because the caller knows where a name will live only after reading its
 * entry: {@link #find} before, {@link #insert} after, with no other insertion in between. Linear probing, at most
 * three quarters full, any capacity. Not thread-safe.
 */
public final class NameTable {
    private static final int MIN_CAPACITY = 16;

    private final IntFunction<String> names;
    /** {@code hash << 32 | ref}, 0 when empty; refs are never 0. */
    private long[] slots;
    private int size;

    /**
     * @param expected the number of names the caller expects; the table grows past it if needed
     * @param names    the name of each reference given to {@link #insert}, available from that call on
     */
    NameTable(int expected, IntFunction<String> names) {
        this.names = names;
        this.slots = new long[capacityFor(expected)];
    }

    /**
     * @param name the name
     * @param hash its {@link NameHash}
     * @return the slot where {@code name} belongs, or -1 when an equal name is already present
     */
    int find(String name, int hash) {
        for (int i = home(hash); ; i = next(i)) {
            long slot = slots[i];
            if (slot == 0) {
                return i;
            }
            if ((int) (slot >>> 32) == hash && names.apply((int) slot).equals(name)) {
                return -1;
            }
        }
    }

    /**
     * Records {@code name} under {@code ref}.
     *
     * @param slot what {@link #find} just returned for this name
     * @param hash the name's {@link NameHash}
     * @param ref  any non-zero value by which the constructor's function returns the name
     */
    void insert(int slot, int hash, int ref) {
        long value = (long) hash << 32 | (ref & 0xFFFF_FFFFL);
        if (++size > (long) slots.length * 3 / 4) {
            grow();
            slot = emptySlot(hash);
        }
        slots[slot] = value;
    }

    private void grow() {
        long[] old = slots;
        slots = new long[(int) Math.min(Integer.MAX_VALUE - 8, old.length * 2L)];
        for (long slot : old) {
            if (slot != 0) {
                slots[emptySlot((int) (slot >>> 32))] = slot;
            }
        }
    }

    private int emptySlot(int hash) {
        int i = home(hash);
        while (slots[i] != 0) {
            i = next(i);
        }
        return i;
    }

    /**
     * The first slot to probe: the mixed hash scaled to the capacity, which need not be a power of two, so that
     * 50,000 names take 66,667 slots rather than 131,072. The multiplication moves every bit of the hash into the
     * high bits that the scaling uses.
     */
    private int home(int hash) {
        return (int) (((hash * 0x9E3779B9L) & 0xFFFF_FFFFL) * slots.length >>> 32);
    }

    private int next(int i) {
        return i + 1 == slots.length ? 0 : i + 1;
    }

    /** @return room for {@code expected} names at most three quarters full */
    private static int capacityFor(int expected) {
        return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(MIN_CAPACITY, (long) expected * 4 / 3 + 1));
    }
}
