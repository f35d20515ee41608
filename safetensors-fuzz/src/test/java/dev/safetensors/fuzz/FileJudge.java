package dev.safetensors.fuzz;

import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Safetensors;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fuzz.reference.Judgement;
import dev.safetensors.fuzz.reference.ReferenceChecker;
import dev.safetensors.fuzz.reference.ReferenceTensor;
import dev.safetensors.fuzz.reference.Verdict;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Judges one whole file every way there is and requires every judgment to agree: the validator through each of its
 * entry points (bytes in memory, a source read whole, a source read in small pieces with a small prefetch, header
 * bytes apart from the file), the reference checker, and the invariants of an accepted header.
 */
final class FileJudge {
    private static final String NAME = "fuzz-input";

    private FileJudge() {
    }

    /**
     * @return the validator's result under {@code policy}, once everything agreed
     * @throws AssertionError describing the first disagreement
     */
    static ValidatorRun judge(byte[] file, PolicyPair policy) {
        Limits limits = policy.limits();
        ValidatorRun inMemory = ValidatorRun.of("readHeader(bytes)", () -> Safetensors.readHeader(NAME, file, limits));
        // a prefetch as large as the file takes the same path as the default 128 KiB, without allocating it each time
        Limits wholePrefetch = limits.toBuilder().prefetchBytes(Math.max(8, Math.min(file.length, limits.prefetchBytes())))
                .build();
        ValidatorRun source = ValidatorRun.of("readHeader(source)",
                () -> Safetensors.readHeader(new MemorySource("fuzz-input", file), wholePrefetch));
        ValidatorRun pieces = ValidatorRun.of("readHeader(source in 7-byte reads, 16-byte prefetch)",
                () -> Safetensors.readHeader(new MemorySource("fuzz-input", file).maxPerRead(7), limits.toBuilder().prefetchBytes(16).build()));
        agree(policy, file, inMemory, source, true);
        // a 16-byte prefetch cannot see a 40-byte Git LFS signature, so only the verdict must match there
        agree(policy, file, inMemory, pieces, false);
        long declared = file.length < 8 ? -1 : ByteBuffer.wrap(file, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (declared >= 0 && declared <= file.length - 8L) {
            byte[] header = Arrays.copyOfRange(file, 8, 8 + (int) declared);
            ValidatorRun apart = ValidatorRun.of("parseHeader(header bytes, fileSize)",
                    () -> Safetensors.parseHeader(NAME, header, file.length, limits));
            agree(policy, file, inMemory, apart, true);
        }

        Judgement reference = ReferenceChecker.check(file, policy.reference());
        if (reference.verdict() != inMemory.verdict()) {
            throw disagreement(policy, file, inMemory + ", but the reference says " + reference.verdict() + " ("
                    + reference.reason() + ")");
        }
        if (inMemory.verdict() == Verdict.VALID) {
            sameContent(policy, file, inMemory.header(), reference);
            HeaderInvariants.check(inMemory.header(), file.length, limits);
        }
        return inMemory;
    }

    private static void agree(PolicyPair policy, byte[] file, ValidatorRun a, ValidatorRun b, boolean sameCode) {
        boolean same = a.verdict() == b.verdict() && (!sameCode || Objects.equals(a.code(), b.code()));
        if (!same) {
            throw disagreement(policy, file, a + ", but " + b);
        }
        if (a.verdict() == Verdict.VALID && !sameHeader(a.header(), b.header())) {
            throw disagreement(policy, file, a.entryPoint() + " and " + b.entryPoint() + " return different headers: "
                    + a.header().tensors() + " / " + b.header().tensors());
        }
    }

    private static boolean sameHeader(SafetensorsHeader a, SafetensorsHeader b) {
        return a.tensors().equals(b.tensors()) && a.metadata().equals(b.metadata()) && a.fileSize() == b.fileSize()
                && a.headerLength() == b.headerLength();
    }

    /** The reference's tensors and metadata, matched by name, and the metadata in the same order. */
    private static void sameContent(PolicyPair policy, byte[] file, SafetensorsHeader h, Judgement reference) {
        Map<String, ReferenceTensor> expected = new HashMap<>();
        reference.tensors().forEach(t -> expected.put(t.name(), t));
        boolean same = expected.size() == h.tensors().size();
        for (TensorInfo t : h.tensors()) {
            ReferenceTensor r = expected.get(t.name());
            same &= r != null && r.dtype().equals(t.dtype().name()) && r.begin() == t.begin() && r.end() == t.end()
                    && r.shape().equals(Arrays.stream(t.shape()).boxed().toList());
        }
        same &= List.copyOf(reference.metadata().entrySet()).equals(List.copyOf(h.metadata().entrySet()));
        if (!same) {
            throw disagreement(policy, file, "the validator read " + h.tensors() + " " + h.metadata()
                    + ", the reference " + reference.tensors() + " " + reference.metadata());
        }
    }

    private static AssertionError disagreement(PolicyPair policy, byte[] file, String what) {
        return new AssertionError("under " + policy.name() + ": " + what + "\nfile: " + Printable.bytes(file));
    }
}
