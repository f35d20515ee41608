package dev.safetensors;

import java.util.List;

/**
 * The lookup by name behind {@link SafetensorsHeader#tensor(String)}: one array of primitives over the tensor list,
 * each slot a name's {@code String.hashCode()} (which the string caches) and the tensor's index.
 *
 * <p>Why not a {@code HashMap}: for 50,000 tensors its table is an array of 131,072 references, a humongous object
 * in G1's default 1 MB regions, beside 50,000 node objects, all of which the collector must trace for as long as the
 * header lives. This index holds no references but the list's, and takes 8 bytes per slot, at most three quarters
 * full. Immutable once built, so safe to share between threads.
 */
final class TensorNameIndex {
    private final List<TensorInfo> tensors;
    /** {@code hash << 32 | index + 1}, 0 when empty. */
    private final long[] slots;

    /** @param tensors the tensors; where two share a name, the first is found */
    TensorNameIndex(List<TensorInfo> tensors) {
        this.tensors = tensors;
        this.slots = new long[Math.max(2, (int) Math.min(Integer.MAX_VALUE - 8, tensors.size() * 4L / 3 + 1))];
        for (int index = 0; index < tensors.size(); index++) {
            String name = tensors.get(index).name();
            int hash = name.hashCode();
            int i = home(hash);
            while (slots[i] != 0 && !matches(slots[i], hash, name)) {
                i = next(i);
            }
            if (slots[i] == 0) {
                slots[i] = (long) hash << 32 | (index + 1);
            }
        }
    }

    /** @return the first tensor of that name, or {@code null}, also for a {@code null} name */
    TensorInfo get(String name) {
        if (name == null) {
            return null;
        }
        int hash = name.hashCode();
        for (int i = home(hash); slots[i] != 0; i = next(i)) {
            if (matches(slots[i], hash, name)) {
                return tensors.get((int) slots[i] - 1);
            }
        }
        return null;
    }

    private boolean matches(long slot, int hash, String name) {
        return (int) (slot >>> 32) == hash && tensors.get((int) slot - 1).name().equals(name);
    }

    /** The first slot to probe: the mixed hash scaled to a capacity that need not be a power of two. */
    private int home(int hash) {
        return (int) (((hash * 0x9E3779B9L) & 0xFFFF_FFFFL) * slots.length >>> 32);
    }

    private int next(int i) {
        return i + 1 == slots.length ? 0 : i + 1;
    }
}
