package dev.safetensors.signing;

import dev.safetensors.signing.internal.HashAlgorithms;
import dev.safetensors.signing.internal.Hex;

import java.security.MessageDigest;
import java.util.List;
import java.util.Objects;

/**
 * What a signature vouches for: the model's name, how it was serialized, and every resource with its digest, in the
 * order the signer listed them.
 *
 * @param modelName     the statement's subject name: informational only (the model folder's name when signed here)
 * @param serialization how the resources were computed
 * @param resources     the files or shards with their digests, in listed order
 */
public record Manifest(String modelName, Serialization serialization, List<Resource> resources) {
    /**
     * Checks that no component is {@code null}.
     *
     * @param modelName the subject name
     * @param serialization how the resources were computed
     * @param resources the resources, in listed order
     * @throws NullPointerException if a component is {@code null}
     */
    public Manifest {
        Objects.requireNonNull(modelName, "modelName");
        Objects.requireNonNull(serialization, "serialization");
        resources = List.copyOf(resources);
    }

    /**
     * The statement's subject digest: SHA-256 over the raw bytes of every resource digest, concatenated in listed
     * order. The order is taken as it is, never re-sorted, since that is what the signer hashed.
     *
     * @return the digest, lowercase hexadecimal
     * @throws IllegalArgumentException if a resource digest is not hexadecimal
     */
    public String subjectDigest() {
        MessageDigest sha256 = HashAlgorithms.sha256();
        for (Resource resource : resources) {
            sha256.update(Hex.decode(resource.digest()));
        }
        return Hex.encode(sha256.digest());
    }
}
