package dev.safetensors.fuzz.reference;

import dev.safetensors.fuzz.reference.JsonValue.JsonArray;
import dev.safetensors.fuzz.reference.JsonValue.JsonObject;
import dev.safetensors.fuzz.reference.JsonValue.JsonString;
import dev.safetensors.fuzz.reference.JsonValue.Member;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A second, deliberately simple judgment of a whole safetensors file, written straight from {@code RULES.md}: decode
 * the header with the JDK, parse it into a tree, then check the rules one by one on the tree, each as literally as
 * the rule reads. It is slow and allocates freely, and it shares no code with the validator, so that the two can be
 * compared on every fuzz input.
 *
 * <p>Precedence, which the rule list leaves to the README: a file is {@link Verdict#INVALID} when it breaks any rule,
 * {@link Verdict#UNSUPPORTED} when it breaks none but names a dtype outside the policy, else {@link Verdict#VALID}.
 * A dtype name the format does not define has no size, so rule 20's byte length cannot be judged for its entry;
 * every other rule, the layout included, still applies to it.
 */
public final class ReferenceChecker {
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final String METADATA = "__metadata__";
    private static final Set<String> TENSOR_FIELDS = Set.of("dtype", "shape", "data_offsets");

    private ReferenceChecker() {
    }

    /**
     * @param file   the whole file: length prefix, header and payload
     * @param policy the bounds and dtypes in force
     * @return the verdict, with the tensors and metadata when the file is not invalid
     */
    public static Judgement check(byte[] file, ReferencePolicy policy) {
        try {
            return judge(file, policy);
        } catch (Rejection r) {
            return Judgement.invalid(r);
        }
    }

    private static Judgement judge(byte[] file, ReferencePolicy policy) {
        if (file.length < 8) {
            throw new Rejection("rule 1", "shorter than 8 bytes");
        }
        BigInteger n = unsignedLittleEndian(file);
        if (n.compareTo(BigInteger.valueOf(policy.maxHeaderBytes())) > 0) {
            throw new Rejection("rule 3", "declared header length " + n + " above the policy");
        }
        if (n.compareTo(BigInteger.valueOf(file.length - 8L)) > 0) {
            throw new Rejection("rule 4", "declared header length " + n + " past the end of the file");
        }
        int headerLength = n.intValueExact();
        String text = StrictUtf8.decode(file, 8, headerLength, "rule 7");
        JsonObject root = JsonTreeParser.parseObjectDocument(text, policy.maxDepth(), policy.leadingWhitespace());
        requireUniqueNames(root);
        requireStringBounds(root, policy);
        if (root.members().size() > policy.maxEntries()) {
            throw new Rejection("rule 14", root.members().size() + " root entries");
        }

        Map<String, String> metadata = new LinkedHashMap<>();
        List<ReferenceTensor> tensors = new ArrayList<>();
        String unsupported = null;
        for (Member m : root.members()) {
            if (m.name().equals(METADATA)) {
                metadata = metadata(m.value(), policy);
                continue;
            }
            ReferenceTensor t = tensor(m.name(), m.value(), policy);
            tensors.add(t);
            if (unsupported == null && !policy.acceptedDtypes().contains(t.dtype())) {
                unsupported = "dtype " + t.dtype() + " of tensor " + t.name() + " is outside the policy";
            }
        }
        requireTiling(tensors, file.length - 8L - headerLength);
        return unsupported == null
                ? new Judgement(Verdict.VALID, "", tensors, metadata)
                : new Judgement(Verdict.UNSUPPORTED, unsupported, tensors, metadata);
    }

    private static BigInteger unsignedLittleEndian(byte[] b) {
        byte[] bigEndian = new byte[9];
        for (int i = 0; i < 8; i++) {
            bigEndian[8 - i] = b[i];
        }
        return new BigInteger(bigEndian);
    }

    /** Rule 11, on every object of the tree, names compared after unescaping. */
    private static void requireUniqueNames(JsonValue v) {
        if (v instanceof JsonObject o) {
            Set<String> seen = new HashSet<>();
            for (Member m : o.members()) {
                if (!seen.add(m.name())) {
                    throw new Rejection("rule 11", "duplicate name " + m.name());
                }
                requireUniqueNames(m.value());
            }
        } else if (v instanceof JsonArray a) {
            a.elements().forEach(ReferenceChecker::requireUniqueNames);
        }
    }

    /** Rules 12 and 13: metadata values have their own bound; every other name and string has rule 12's. */
    private static void requireStringBounds(JsonObject root, ReferencePolicy policy) {
        for (Member m : root.members()) {
            requireUtf8Length(m.name(), policy.maxStringBytes(), "rule 12");
            if (m.name().equals(METADATA) && m.value() instanceof JsonObject metadata) {
                for (Member entry : metadata.members()) {
                    requireUtf8Length(entry.name(), policy.maxStringBytes(), "rule 12");
                    if (entry.value() instanceof JsonString s) {
                        requireUtf8Length(s.value(), policy.maxMetadataValueBytes(), "rule 13");
                    } else {
                        requireStringBounds(entry.value(), policy);
                    }
                }
            } else {
                requireStringBounds(m.value(), policy);
            }
        }
    }

    private static void requireStringBounds(JsonValue v, ReferencePolicy policy) {
        if (v instanceof JsonObject o) {
            for (Member m : o.members()) {
                requireUtf8Length(m.name(), policy.maxStringBytes(), "rule 12");
                requireStringBounds(m.value(), policy);
            }
        } else if (v instanceof JsonArray a) {
            a.elements().forEach(e -> requireStringBounds(e, policy));
        } else if (v instanceof JsonString s) {
            requireUtf8Length(s.value(), policy.maxStringBytes(), "rule 12");
        }
    }

    private static void requireUtf8Length(String s, int max, String rule) {
        int n = s.getBytes(StandardCharsets.UTF_8).length;
        if (n > max) {
            throw new Rejection(rule, "a string of " + n + " UTF-8 bytes, above " + max);
        }
    }

    /** Rules 14 and 15. */
    private static Map<String, String> metadata(JsonValue v, ReferencePolicy policy) {
        if (!(v instanceof JsonObject o)) {
            throw new Rejection("rule 15", "__metadata__ is not an object");
        }
        if (o.members().size() > policy.maxMetadataKeys()) {
            throw new Rejection("rule 14", o.members().size() + " metadata keys");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Member m : o.members()) {
            if (!(m.value() instanceof JsonString s)) {
                throw new Rejection("rule 15", "metadata value of " + m.name() + " is not a string");
            }
            metadata.put(m.name(), s.value());
        }
        return metadata;
    }

    /** Rules 16 to 20 for one entry. */
    private static ReferenceTensor tensor(String name, JsonValue v, ReferencePolicy policy) {
        if (!(v instanceof JsonObject o)) {
            throw new Rejection("rule 16", "entry " + name + " is not an object");
        }
        Map<String, JsonValue> fields = new LinkedHashMap<>();
        o.members().forEach(m -> fields.put(m.name(), m.value()));
        if (!fields.keySet().equals(TENSOR_FIELDS)) {
            throw new Rejection("rule 16", "entry " + name + " has fields " + fields.keySet());
        }
        if (!(fields.get("dtype") instanceof JsonString dtype)) {
            throw new Rejection("rule 17", "dtype of " + name + " is not a string");
        }
        if (!(fields.get("shape") instanceof JsonArray shapeArray)) {
            throw new Rejection("rule 18", "shape of " + name + " is not an array");
        }
        if (shapeArray.elements().size() > policy.maxRank()) {
            throw new Rejection("rule 18", "rank " + shapeArray.elements().size() + " of " + name);
        }
        List<Long> shape = new ArrayList<>();
        for (JsonValue d : shapeArray.elements()) {
            shape.add(PlainInteger.of(d, "rule 18", "a dimension of " + name));
        }
        if (!(fields.get("data_offsets") instanceof JsonArray offsets) || offsets.elements().size() != 2) {
            throw new Rejection("rule 18", "data_offsets of " + name + " is not an array of two");
        }
        long begin = PlainInteger.of(offsets.elements().get(0), "rule 18", "begin of " + name);
        long end = PlainInteger.of(offsets.elements().get(1), "rule 18", "end of " + name);
        if (begin > end) {
            throw new Rejection("rule 19", "begin after end in " + name);
        }
        BigInteger count = BigInteger.ONE;
        for (long d : shape) {
            count = count.multiply(BigInteger.valueOf(d));
            if (count.compareTo(LONG_MAX) > 0) {
                throw new Rejection("rule 20", "element count of " + name + " overflows");
            }
        }
        Integer bitsPerElement = ReferenceDtypes.BITS.get(dtype.value());
        if (bitsPerElement != null) {
            BigInteger bits = count.multiply(BigInteger.valueOf(bitsPerElement));
            if (bits.compareTo(LONG_MAX) > 0) {
                throw new Rejection("rule 20", "size in bits of " + name + " overflows");
            }
            if (bits.mod(BigInteger.valueOf(8)).signum() != 0) {
                throw new Rejection("rule 20", name + " is not a whole number of bytes");
            }
            if (!bits.shiftRight(3).equals(BigInteger.valueOf(end - begin))) {
                throw new Rejection("rule 20", name + " needs " + bits.shiftRight(3) + " bytes, has " + (end - begin));
            }
        }
        return new ReferenceTensor(name, dtype.value(), List.copyOf(shape), begin, end);
    }

    /** Rule 21: sorted by (begin, end), each range starts where the previous ended, from 0 to the payload's end. */
    private static void requireTiling(List<ReferenceTensor> tensors, long payloadLength) {
        List<ReferenceTensor> sorted = new ArrayList<>(tensors);
        sorted.sort(Comparator.comparingLong(ReferenceTensor::begin).thenComparingLong(ReferenceTensor::end));
        long next = 0;
        for (ReferenceTensor t : sorted) {
            if (t.begin() != next) {
                throw new Rejection("rule 21", t.name() + " begins at " + t.begin() + ", not " + next);
            }
            next = t.end();
        }
        if (next != payloadLength) {
            throw new Rejection("rule 21", "the tensors end at " + next + ", the payload at " + payloadLength);
        }
    }
}
