package dev.safetensors.signing.internal;

import dev.safetensors.signing.Manifest;
import dev.safetensors.signing.ModelFile;
import dev.safetensors.signing.ModelFiles;
import dev.safetensors.signing.Resource;
import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.VerificationResult;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Compares a model with a signed manifest (OMS 8.4): the model is listed and hashed with the manifest's own
 * serialization parameters, and every file that is missing, extra or different is reported, not only the first.
 */
public final class ManifestCheck {
    private ManifestCheck() {
    }

    /** One expected range of one file, with the digest the manifest gives it. */
    private record Expected(long start, long end, String digest) {
    }

    /**
     * @param model          the model
     * @param manifest       the signed manifest
     * @param alsoIgnored    further paths to leave out (the signature file, when it lies inside the model)
     * @param ignoreUnsigned whether files the manifest does not list are accepted
     * @param hasher         the hashing workers
     * @return what differs
     * @throws SigningException {@link Reason#INVALID_STATEMENT} for a resource name that does not fit the
     *                          serialization, or listed twice; {@link Reason#UNSUPPORTED_ALGORITHM} for a hash OMS
     *                          does not define
     * @throws IOException      if the model cannot be listed or read
     */
    public static VerificationResult check(ModelFiles model, Manifest manifest, List<String> alsoIgnored,
                                           boolean ignoreUnsigned, ModelHasher hasher) throws IOException {
        Serialization s = manifest.serialization();
        Supplier<MessageDigest> algorithm = HashAlgorithms.of(s.hashType());
        Map<String, List<Expected>> expected = expected(model, manifest);

        List<String> ignore = new ArrayList<>(Serialization.DEFAULT_IGNORE_PATHS);
        ignore.addAll(s.ignorePaths());
        ignore.addAll(alsoIgnored);
        Map<String, ModelFile> local = new LinkedHashMap<>();
        for (ModelFile file : model.list(s.allowSymlinks(), ModelPaths.ignoring(ignore))) {
            local.put(file.path(), file);
        }

        List<String> missing = new ArrayList<>();
        Set<String> mismatched = new LinkedHashSet<>();
        List<ModelHasher.Range> toHash = new ArrayList<>();
        List<String> digests = new ArrayList<>();
        for (Map.Entry<String, List<Expected>> entry : expected.entrySet()) {
            ModelFile file = local.get(entry.getKey());
            if (file == null) {
                missing.add(entry.getKey());
                continue;
            }
            List<Expected> ranges = entry.getValue();
            List<ModelHasher.Range> actual = ManifestBuilder.ranges(List.of(file), s);
            if (!sameRanges(ranges, actual, s)) {
                mismatched.add(file.path());
                continue;
            }
            for (int i = 0; i < actual.size(); i++) {
                toHash.add(actual.get(i));
                digests.add(ranges.get(i).digest());
            }
        }
        List<byte[]> computed = hasher.digest(model, toHash, algorithm);
        for (int i = 0; i < toHash.size(); i++) {
            if (!Arrays.equals(computed.get(i), Hex.decode(digests.get(i)))) {
                mismatched.add(toHash.get(i).file().path());
            }
        }

        List<String> extra = new ArrayList<>();
        for (ModelFile file : local.values()) {
            // an empty file has no shard, so a shards manifest cannot list it
            boolean listable = s.method() == Serialization.Method.FILES || file.size() > 0;
            if (!expected.containsKey(file.path()) && listable && !ignoreUnsigned) {
                extra.add(file.path());
            }
        }
        return new VerificationResult(manifest, missing, extra, List.copyOf(mismatched));
    }

    private static boolean sameRanges(List<Expected> expected, List<ModelHasher.Range> actual, Serialization s) {
        if (s.method() == Serialization.Method.FILES) {
            return true;
        }
        if (expected.size() != actual.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            if (expected.get(i).start() != actual.get(i).start() || expected.get(i).end() != actual.get(i).end()) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, List<Expected>> expected(ModelFiles model, Manifest manifest) throws SigningException {
        Serialization s = manifest.serialization();
        boolean shards = s.method() == Serialization.Method.SHARDS;
        // the reference writes "sha256" for files and "sha256-sharded-<shard size>" for shards
        Set<String> algorithms = shards ? Set.of(s.hashType(), s.hashType() + "-sharded-" + s.shardSize())
                : Set.of(s.hashType());
        Map<String, List<Expected>> expected = new LinkedHashMap<>();
        Set<String> names = new java.util.HashSet<>();
        for (Resource r : manifest.resources()) {
            if (!algorithms.contains(r.algorithm())) {
                throw new SigningException(Reason.INVALID_STATEMENT, "resource " + r.name() + " has algorithm \""
                        + r.algorithm() + "\", not the serialization's " + s.hashType());
            }
            String path = r.name();
            long start = 0;
            long end = -1;
            if (shards) {
                int last = path.lastIndexOf(':');
                int middle = last <= 0 ? -1 : path.lastIndexOf(':', last - 1);
                if (middle < 0) {
                    throw new SigningException(Reason.INVALID_STATEMENT, "shard resource " + r.name()
                            + " is not named path:start:end");
                }
                try {
                    start = Long.parseLong(path.substring(middle + 1, last));
                    end = Long.parseLong(path.substring(last + 1));
                } catch (NumberFormatException e) {
                    throw new SigningException(Reason.INVALID_STATEMENT, "shard resource " + r.name()
                            + " does not end in two decimal offsets");
                }
                path = path.substring(0, middle);
            }
            path = ModelPaths.canonical(path);
            if (path.isEmpty() && model.singleFile()) {
                // the reference names a single-file model's one file "."
                path = model.name();
            }
            if (path.isEmpty() || !names.add(path + ":" + start)) {
                throw new SigningException(Reason.INVALID_STATEMENT, "resource \"" + r.name()
                        + "\" is empty or listed twice");
            }
            expected.computeIfAbsent(path, p -> new ArrayList<>()).add(new Expected(start, end, r.digest()));
        }
        for (List<Expected> ranges : expected.values()) {
            ranges.sort((a, b) -> Long.compare(a.start(), b.start()));
        }
        return expected;
    }
}
