package dev.safetensors.signing.internal;

import dev.safetensors.signing.Manifest;
import dev.safetensors.signing.Resource;
import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.util.ArrayList;
import java.util.List;

/**
 * The in-toto statement that carries a manifest: written with the OMS v1.0 predicate, read in that form and in the
 * deprecated {@code Digests/v0.1} one (file digests as subjects), which version 0.2 of the reference signed with.
 */
public final class StatementCodec {
    /** The in-toto statement type. */
    public static final String STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
    /** The OMS v1.0 predicate type. */
    public static final String PREDICATE_TYPE = "https://model_signing/signature/v1.0";
    /** The deprecated predicate of the reference's version 0.2, verified for backward compatibility only. */
    public static final String LEGACY_PREDICATE_TYPE = "https://model_signing/Digests/v0.1";

    private StatementCodec() {
    }

    /**
     * @param manifest the manifest, resources in the order to sign
     * @return the statement JSON
     */
    public static byte[] write(Manifest manifest) {
        Serialization s = manifest.serialization();
        String subjectDigest = manifest.subjectDigest();
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringProperty("_type", STATEMENT_TYPE);
            g.writeArrayPropertyStart("subject");
            g.writeStartObject();
            g.writeStringProperty("name", manifest.modelName());
            g.writeObjectPropertyStart("digest");
            g.writeStringProperty("sha256", subjectDigest);
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndArray();
            g.writeStringProperty("predicateType", PREDICATE_TYPE);
            g.writeObjectPropertyStart("predicate");
            g.writeObjectPropertyStart("serialization");
            g.writeStringProperty("method", s.method().jsonName());
            g.writeStringProperty("hash_type", s.hashType());
            if (s.method() == Serialization.Method.SHARDS) {
                g.writeNumberProperty("shard_size", s.shardSize());
            }
            g.writeBooleanProperty("allow_symlinks", s.allowSymlinks());
            if (!s.ignorePaths().isEmpty()) {
                Json.stringArray(g, "ignore_paths", s.ignorePaths());
            }
            g.writeEndObject();
            g.writeArrayPropertyStart("resources");
            for (Resource r : manifest.resources()) {
                g.writeStartObject();
                g.writeStringProperty("name", r.name());
                g.writeStringProperty("algorithm", r.algorithm());
                g.writeStringProperty("digest", r.digest());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndObject();
        });
    }

    /**
     * Reads a statement and checks that its subject digest matches its resources in the order listed.
     *
     * @param json the signed payload
     * @return the manifest it carries
     * @throws SigningException {@link Reason#INVALID_STATEMENT} if it is not an OMS statement;
     *                          {@link Reason#INCONSISTENT_MANIFEST} if the subject digest differs
     */
    public static Manifest read(byte[] json) throws SigningException {
        JsonObject statement = JsonObject.of(Json.parse(json, "the signed statement", Reason.INVALID_STATEMENT),
                "statement", Reason.INVALID_STATEMENT);
        String type = statement.string("_type");
        if (!type.equals(STATEMENT_TYPE)) {
            throw statement.invalid("_type", "is \"" + type + "\", not an in-toto Statement v1");
        }
        String predicateType = statement.string("predicateType");
        List<JsonObject> subjects = statement.objects("subject");
        if (predicateType.equals(LEGACY_PREDICATE_TYPE)) {
            return legacy(subjects);
        }
        if (!predicateType.equals(PREDICATE_TYPE)) {
            throw statement.invalid("predicateType", "is \"" + predicateType + "\", not the OMS predicate");
        }
        if (subjects.size() != 1) {
            throw statement.invalid("subject", "holds " + subjects.size() + " entries, not the model alone");
        }
        JsonObject subject = subjects.get(0);
        String name = subject.string("name");
        String expected = subject.object("digest").string("sha256");

        JsonObject predicate = statement.object("predicate");
        Serialization serialization = serialization(predicate.object("serialization"));
        List<Resource> resources = new ArrayList<>();
        for (JsonObject r : predicate.objects("resources")) {
            resources.add(new Resource(r.string("name"), r.string("algorithm"), hexDigest(r, "digest")));
        }
        if (resources.isEmpty()) {
            throw predicate.invalid("resources", "is empty");
        }
        Manifest manifest = new Manifest(name, serialization, resources);
        String actual = manifest.subjectDigest();
        if (!actual.equals(expected)) {
            throw new SigningException(Reason.INCONSISTENT_MANIFEST, "the subject digest is " + expected
                    + " but the resources, in the order listed, hash to " + actual);
        }
        return manifest;
    }

    /**
     * @param json a signed payload
     * @return whether it is a statement with the deprecated {@code Digests/v0.1} predicate
     * @throws SigningException {@link Reason#INVALID_STATEMENT} if it is not a JSON object with a predicate type
     */
    public static boolean isLegacy(byte[] json) throws SigningException {
        JsonObject statement = JsonObject.of(Json.parse(json, "the signed statement", Reason.INVALID_STATEMENT),
                "statement", Reason.INVALID_STATEMENT);
        return statement.string("predicateType").equals(LEGACY_PREDICATE_TYPE);
    }

    private static Serialization serialization(JsonObject s) throws SigningException {
        String method = s.string("method");
        String hashType = s.string("hash_type");
        boolean allowSymlinks = s.bool("allow_symlinks");
        List<String> ignorePaths = s.optionalStrings("ignore_paths");
        try {
            switch (method) {
                case "files":
                    return new Serialization(Serialization.Method.FILES, hashType, 0, allowSymlinks, ignorePaths);
                case "shards":
                    return new Serialization(Serialization.Method.SHARDS, hashType, s.positiveLong("shard_size"),
                            allowSymlinks, ignorePaths);
                default:
                    throw new SigningException(Reason.UNSUPPORTED_ALGORITHM,
                            "serialization method \"" + method + "\" is not one of files, shards");
            }
        } catch (IllegalArgumentException e) {
            throw s.invalid("ignore_paths", "is not a list of paths relative to the model root: " + e.getMessage());
        }
    }

    private static Manifest legacy(List<JsonObject> subjects) throws SigningException {
        List<Resource> resources = new ArrayList<>();
        for (JsonObject subject : subjects) {
            resources.add(new Resource(subject.string("name"), Serialization.SHA256,
                    hexDigest(subject.object("digest"), "sha256")));
        }
        if (resources.isEmpty()) {
            throw new SigningException(Reason.INVALID_STATEMENT, "the legacy statement has no subject");
        }
        return new Manifest("", Serialization.files(), resources);
    }

    private static String hexDigest(JsonObject object, String name) throws SigningException {
        String digest = object.string(name);
        if (!digest.matches("([0-9a-f]{2})+")) {
            throw object.invalid(name, "is not lowercase hexadecimal");
        }
        return digest;
    }
}
