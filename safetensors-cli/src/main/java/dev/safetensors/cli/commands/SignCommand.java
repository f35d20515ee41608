package dev.safetensors.cli.commands;

import dev.safetensors.core.OutputFolder;
import dev.safetensors.signing.ModelSignature;
import dev.safetensors.signing.ModelSigner;
import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningKeys;
import dev.safetensors.cli.arguments.ByteSize;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.results.Failure;

import java.io.IOException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code safetensors sign LOCATION --key PRIVATE.pem}: an OpenSSF Model Signing (v1.0) bundle over every file of a
 * model folder, a file, or a store prefix, signed with an ECDSA key, optionally with its certificate chain.
 */
public final class SignCommand extends Subcommand {
    final CommonOptions common = new CommonOptions();
    String location;
    String key;
    String publicKey;
    String certificate;
    final List<String> chain = new ArrayList<>();
    String outText;
    final List<String> ignore = new ArrayList<>();
    String hash = Serialization.SHA256;
    String shards;
    boolean allowSymlinks;

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("sign", List.of("Sign a model: every file under LOCATION (a folder, a"
                + " file, or a prefix s3://, gs://, az://, hf://) hashed, each byte read once, into an OpenSSF Model"
                + " Signing v1.0 bundle (a Sigstore bundle, as model_signing writes and verifies it), signed with an"
                + " ECDSA P-256, P-384 or P-521 key.",
                "A signature says who vouched for these bytes, file by file; not that the model is safe, nor when"
                        + " it was signed. See docs/signing.md."),
                List.of("", "Examples:",
                        "  safetensors sign my-model/ --key signing-key.pem",
                        "  safetensors sign my-model/ --key leaf-key.pem --cert leaf.pem --chain ca.pem",
                        "  safetensors sign s3://bucket/model/ --key signing-key.pem --out model.sig"));
        common.declare(spec);
        spec.positional(new PositionalSpec("LOCATION", 1, 1, "The model: a folder, a file, or a prefix.",
                v -> location = v));
        spec.option(OptionSpec.value("--key", "PEM", "The private key (PKCS#8 or SEC1 PEM, unencrypted).",
                v -> key = v).mandatory());
        spec.option(OptionSpec.value("--public-key", "PEM", "Its public key, when the private key's file does"
                + " not carry it (OpenSSL's do).", v -> publicKey = v));
        spec.option(OptionSpec.value("--cert", "PEM", "The signing certificate: the bundle carries it and"
                + " --chain instead of a key fingerprint.", v -> certificate = v));
        spec.option(OptionSpec.value("--chain", "PEM", "A certificate of the chain above --cert (repeatable, or"
                + " several in one file).", chain::add).repeated());
        spec.option(OptionSpec.value("--out", "FILE", "Where to write the bundle (default: LOCATION/model.sig for"
                + " a folder, FILE.sig for a file; required for a prefix).", v -> outText = v).alias("-o"));
        spec.option(OptionSpec.value("--ignore", "PATH", "A path below LOCATION to leave out (repeatable): relative"
                + " to it, or absolute inside a local folder; .git, .gitattributes, .github and .gitignore always"
                + " are.", ignore::add).repeated());
        spec.option(OptionSpec.value("--hash", "ALGORITHM", "sha256 (default), blake2b or blake3 (whole files only,"
                + " as model_signing signs it: not with --shards).", v -> hash = v));
        spec.option(OptionSpec.value("--shards", "SIZE", "Hash each file in ranges of SIZE bytes (the shards"
                + " serialization; 1GB as model_signing's default), not whole.", v -> shards = v));
        spec.option(OptionSpec.flag("--allow-symlinks", "Follow symbolic links (hashing their targets).",
                () -> allowSymlinks = true));
        return spec;
    }

    @Override
    public int call() {
        Serialization serialization = serialization();
        SignatureReport report = new SignatureReport(out, err, common.json);
        try {
            SignedModel model = SignedModel.of(location, common.opener());
            serialization = serialization.withIgnorePaths(withDefaults(model.relativeIgnorePaths("--ignore", ignore)));
            Path output = output(model);
            SigningIdentity signer = SigningIdentity.read(key, publicKey, certificate, chain);
            ModelSignature signature;
            if (model.local().isPresent()) {
                signature = signer.signer().sign(model.local().get(), output, serialization);
            } else {
                signature = signer.signer().sign(model.files(), serialization);
                signature.writeTo(output);
            }
            report.signed(shown(location), output.toString(), signature.manifest(), signer.description());
            return 0;
        } catch (UsageException e) {
            // an --ignore path outside the model is known only once LOCATION is: still a usage error (exit 2)
            throw e;
        } catch (IOException | RuntimeException e) {
            if (common.debug) {
                err.print(Sanitized.stackTrace(e));
            }
            return report.failed("sign", shown(location), Failure.from(e, shown(location)));
        }
    }

    private Serialization serialization() {
        Serialization s;
        if (shards == null) {
            s = Serialization.files();
        } else {
            long size;
            try {
                size = ByteSize.parseBytes(shards);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--shards: " + e.getMessage());
            }
            if (size < 1) {
                throw new UsageException("--shards: a shard is at least 1 byte");
            }
            s = Serialization.shards(size);
        }
        if (!hash.equals(Serialization.SHA256) && !hash.equals(Serialization.BLAKE2B)
                && !hash.equals(Serialization.BLAKE3)) {
            throw new UsageException("--hash takes sha256, blake2b or blake3, was '" + Sanitized.line(hash, 40) + "'");
        }
        if (hash.equals(Serialization.BLAKE3) && shards != null) {
            // model_signing signs blake3 whole files only, and its verifier re-hashes a blake3 manifest file by file
            throw new UsageException("--hash blake3 hashes whole files, as model_signing signs it: drop --shards, or"
                    + " use sha256 or blake2b shards");
        }
        if (certificate == null && !chain.isEmpty()) {
            throw new UsageException("--chain names the certificates above --cert: give --cert too");
        }
        return s.withHashType(hash).withAllowSymlinks(allowSymlinks);
    }

    /** @return the paths the manifest records as ignored: the reference's defaults, then those given */
    private static List<String> withDefaults(List<String> given) {
        List<String> ignored = new ArrayList<>(Serialization.DEFAULT_IGNORE_PATHS);
        ignored.addAll(given);
        return ignored;
    }

    /** The bundle's file: --out, or the default beside a local model. */
    private Path output(SignedModel model) throws IOException {
        if (outText != null) {
            return OutputFolder.local(outText);
        }
        if (model.local().isEmpty()) {
            throw new UsageException("--out FILE is required to sign a prefix: the bundle is written locally");
        }
        Path local = model.local().get().toAbsolutePath();
        return java.nio.file.Files.isDirectory(local) ? local.resolve("model.sig")
                : local.resolveSibling(local.getFileName() + ".sig");
    }

    /** @return a LOCATION as output shows it: a URL without its user information or query */
    static String shown(String location) {
        return dev.safetensors.Location.parse(location).display();
    }

    /** @return the certificates of PEM files, in order */
    static List<X509Certificate> certificates(List<String> files) throws IOException {
        List<X509Certificate> all = new ArrayList<>();
        for (String f : files) {
            all.addAll(SigningKeys.readCertificates(Pem.read(f)));
        }
        return all;
    }

    /**
     * A signer and how it is shown.
     *
     * @param signer      the signer
     * @param description "key FINGERPRINT" or the certificate's subject
     */
    record SigningIdentity(ModelSigner signer, String description) {
        static SigningIdentity read(String key, String publicKey, String certificate, List<String> chain)
                throws IOException {
            String pem = Pem.read(key);
            if (certificate != null) {
                List<X509Certificate> all = new ArrayList<>(certificates(List.of(certificate)));
                all.addAll(certificates(chain));
                PrivateKey privateKey = SigningKeys.readPrivateKey(pem);
                return new SigningIdentity(ModelSigner.withCertificateChain(privateKey, all),
                        "certificate " + all.get(0).getSubjectX500Principal().getName());
            }
            KeyPair keys = publicKey == null ? SigningKeys.readKeyPair(pem)
                    : new KeyPair(SigningKeys.readPublicKey(Pem.read(publicKey)), SigningKeys.readPrivateKey(pem));
            return new SigningIdentity(ModelSigner.withKey(keys), "key " + SigningKeys.hint(keys.getPublic()));
        }
    }
}
