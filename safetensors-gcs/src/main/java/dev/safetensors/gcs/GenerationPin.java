package dev.safetensors.gcs;

import dev.safetensors.SourceChangedException;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The object identity a source is pinned to. Before the first response only the generation the URI asked for
 * (if any) is known; the first verified response pins generation and size, and every later response must
 * show the same generation. Thread-safe: concurrent first reads race to pin, and the loser is compared with
 * the winner.
 */
final class GenerationPin {
    private final String name;
    private final long asked;
    private final AtomicReference<ObjectIdentity> pinned = new AtomicReference<>();

    /**
     * @param name  the source name, for messages
     * @param asked the generation the URI or blob id asked for, or -1
     */
    GenerationPin(String name, long asked) {
        this.name = name;
        this.asked = asked;
    }

    /** @return the pinned identity, or {@code null} before the first verified response */
    ObjectIdentity identity() {
        return pinned.get();
    }

    /** @return the generation to send on the next request ({@code generation=} and {@code ifGenerationMatch=}), or -1 */
    long generationToSend() {
        ObjectIdentity id = pinned.get();
        return id != null ? id.generation() : asked;
    }

    /** @return whether {@link #generationToSend()} was learned from a response rather than asked for */
    boolean learned() {
        return pinned.get() != null;
    }

    /** @return the pinned size, or -1 before the first verified response */
    long knownSize() {
        ObjectIdentity id = pinned.get();
        return id != null ? id.size() : -1;
    }

    /**
     * @param seen the generation a response carries
     * @throws SourceChangedException if it differs from the generation asked for or pinned
     */
    void requireGeneration(long seen) throws SourceChangedException {
        long expected = generationToSend();
        if (expected >= 0 && seen != expected) {
            throw new SourceChangedException(name, "generation " + expected + " was "
                    + (learned() ? "pinned" : "asked for") + " but the response is for generation " + seen);
        }
    }

    /**
     * Checks a response's identity against what was asked and pinned, and pins it if nothing was pinned yet.
     *
     * @throws SourceChangedException if the generation differs from the one asked for or pinned
     */
    void check(ObjectIdentity seen) throws SourceChangedException {
        requireGeneration(seen.generation());
        if (!pinned.compareAndSet(null, seen)) {
            ObjectIdentity first = pinned.get();
            if (first.generation() != seen.generation() || first.size() != seen.size()) {
                throw new SourceChangedException(name, "generation " + first.generation() + " (size "
                        + first.size() + ") was pinned by a concurrent read but this response is for generation "
                        + seen.generation() + " (size " + seen.size() + ")");
            }
        }
    }
}
