package dev.safetensors.signing.internal;

import dev.safetensors.signing.Manifest;
import dev.safetensors.signing.ModelFile;
import dev.safetensors.signing.ModelFiles;
import dev.safetensors.signing.Resource;
import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Supplier;

/** Hashes a model into the manifest a signer signs. */
public final class ManifestBuilder {
    private ManifestBuilder() {
    }

    /**
     * @param model         the model
     * @param serialization how to hash it; its ignore paths are written to the manifest with the defaults and
     *                      {@code alsoIgnored} added, so a verifier leaves out the same files
     * @param alsoIgnored   further paths to leave out (the signature file, when it lies inside the model)
     * @param hasher        the hashing workers
     * @return the manifest, resources in the reference implementation's order
     * @throws SigningException {@link Reason#EMPTY_MODEL} if no file is left to sign;
     *                          {@link Reason#UNSUPPORTED_ALGORITHM} for a hash OMS does not define, or blake3
     *                          with shards
     * @throws IOException      if the model cannot be listed or read
     */
    public static Manifest build(ModelFiles model, Serialization serialization, List<String> alsoIgnored,
                                 ModelHasher hasher) throws IOException {
        Supplier<MessageDigest> algorithm = HashAlgorithms.forSigning(serialization);
        TreeSet<String> ignore = new TreeSet<>(Serialization.DEFAULT_IGNORE_PATHS);
        ignore.addAll(serialization.ignorePaths());
        for (String path : alsoIgnored) {
            ignore.add(ModelPaths.canonical(path));
        }
        ignore.remove("");
        Serialization recorded = serialization.withIgnorePaths(List.copyOf(ignore));
        List<ModelFile> files = model.list(serialization.allowSymlinks(), ModelPaths.ignoring(ignore));
        List<ModelHasher.Range> ranges = ranges(files, serialization);
        if (files.isEmpty()) {
            throw new SigningException(Reason.EMPTY_MODEL, model + " holds no file to sign");
        }
        ranges.sort(ModelPaths.REFERENCE_ORDER);
        List<byte[]> digests = hasher.digest(model, ranges, algorithm);
        List<Resource> resources = new ArrayList<>(ranges.size());
        for (int i = 0; i < ranges.size(); i++) {
            ModelHasher.Range range = ranges.get(i);
            String name = serialization.method() == Serialization.Method.FILES ? range.file().path()
                    : range.file().path() + ":" + range.start() + ":" + range.end();
            resources.add(new Resource(name, serialization.hashType(), Hex.encode(digests.get(i))));
        }
        return new Manifest(model.name(), recorded, resources);
    }

    /**
     * The ranges a serialization hashes: each file whole for {@code files}, each non-empty file cut every
     * {@code shard_size} bytes for {@code shards}.
     *
     * @param files         the files
     * @param serialization the serialization
     * @return the ranges, file by file
     */
    public static List<ModelHasher.Range> ranges(List<ModelFile> files, Serialization serialization) {
        List<ModelHasher.Range> ranges = new ArrayList<>();
        for (ModelFile file : files) {
            if (serialization.method() == Serialization.Method.FILES) {
                ranges.add(new ModelHasher.Range(file, 0, file.size()));
                continue;
            }
            for (long start = 0, end; start < file.size(); start = end) {
                end = start + Math.min(serialization.shardSize(), file.size() - start);
                ranges.add(new ModelHasher.Range(file, start, end));
            }
        }
        return ranges;
    }
}
