package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.ModelVerifier;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningKeys;
import dev.safetensors.signing.SigstoreTrustRoot;
import dev.safetensors.signing.VerificationResult;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code verify LOCATION --signature FILE (--public-key PEM | --trust-anchor PEM... | --identity ID --issuer URL
 * [--trust-root FILE])}: the bundle's signature checked against the key, the CAs, or (keyless) the Sigstore trusted
 * root and the expected identity first, then every file of the model against the signed manifest. Exit 0 when both
 * hold, 1 when the signature does not verify ({@code BAD_SIGNATURE}), its signer is not trusted
 * ({@code UNTRUSTED_SIGNER}: another key or identity, no trusted CA, a transparency-log entry or timestamp that
 * does not hold), the bundle is malformed ({@code INVALID_SIGNATURE_BUNDLE}) or the model differs (every missing,
 * extra and changed file named), 3 when something cannot be read or is not supported here
 * ({@code UNSUPPORTED_SIGNATURE}: a key type, a hash, a trusted root that cannot be used).
 *
 * @param location            the model
 * @param signature           the bundle file
 * @param publicKey           the signer's public key PEM, or null
 * @param trustAnchors        the trusted CA certificates' PEM files (empty with a public key or keyless)
 * @param keyless             the keyless signer expected, or null
 * @param ignorePaths         paths to leave out besides those the manifest records ({@code --ignore})
 * @param ignoreUnsignedFiles whether files the manifest does not list are left out instead of reported
 * @param json                whether to print JSON Lines
 * @param debug               whether to print a failure's stack trace
 */
public record SignatureCheck(String location, String signature, String publicKey, List<String> trustAnchors,
                             Keyless keyless, List<String> ignorePaths, boolean ignoreUnsignedFiles, boolean json,
                             boolean debug) {
    /** The environment variable naming a trusted root file to use instead of the shipped one. */
    public static final String TRUST_ROOT_VARIABLE = "SAFETENSORS_SIGSTORE_TRUST_ROOT";

    /**
     * A keyless signer expected.
     *
     * @param identity  the email address or URI its certificate must name
     * @param issuer    the OIDC issuer that must have vouched for it
     * @param trustRoot the trusted root file, or null for the shipped public-good root
     */
    public record Keyless(String identity, String issuer, String trustRoot) {
    }

    /**
     * @param environment the process's environment
     * @return the trusted root file {@link #TRUST_ROOT_VARIABLE} names, or null if it is unset or empty
     */
    public static String trustRootFromEnvironment(java.util.Map<String, String> environment) {
        String file = environment.get(TRUST_ROOT_VARIABLE);
        return file == null || file.isEmpty() ? null : file;
    }

    /**
     * @param opener the run's sources
     * @param out    stdout
     * @param err    stderr
     * @return the exit code
     */
    public int run(SourceOpener opener, PrintStream out, PrintStream err) {
        SignatureReport report = new SignatureReport(out, err, json);
        try {
            ModelVerifier verifier;
            String signer;
            if (keyless != null) {
                SigstoreTrustRoot root = keyless.trustRoot() == null ? SigstoreTrustRoot.production()
                        : SigstoreTrustRoot.read(Path.of(keyless.trustRoot()));
                verifier = ModelVerifier.keyless(root, keyless.identity(), keyless.issuer());
                signer = keyless.identity() + " (issuer " + keyless.issuer() + ", Sigstore "
                        + (keyless.trustRoot() == null ? "public-good root of " + SigstoreTrustRoot.PRODUCTION_DATE
                        : "trusted root " + keyless.trustRoot()) + ")";
            } else if (publicKey != null) {
                java.security.PublicKey key = SigningKeys.readPublicKey(Pem.read(publicKey));
                verifier = ModelVerifier.withPublicKey(key);
                signer = "key " + SigningKeys.hint(key);
            } else {
                verifier = ModelVerifier.withTrustAnchors(SignCommand.certificates(trustAnchors));
                signer = "a certificate chain to --trust-anchor";
            }
            verifier = verifier.ignoreUnsignedFiles(ignoreUnsignedFiles);
            Path bundle = Path.of(signature);
            SignedModel model = SignedModel.of(location, opener);
            List<String> ignored = model.relativeIgnorePaths("--ignore", ignorePaths);
            VerificationResult result = model.local().isPresent()
                    ? verifier.verify(model.local().get(), bundle, ignored)
                    : verifier.verify(model.files(), ModelVerifier.readBundle(bundle), ignored);
            return report.verified(SignCommand.shown(location), signature, result, signer);
        } catch (UsageException e) {
            // an --ignore path outside the model is known only once LOCATION is: still a usage error (exit 2)
            throw e;
        } catch (IOException | RuntimeException e) {
            if (debug) {
                err.print(Sanitized.stackTrace(e));
            }
            Failure f = Failure.from(e, SignCommand.shown(location));
            if (e instanceof SigningException s && verdict(s.code())) {
                // a signature that does not hold is a verdict on the input, not a failure to read it
                f = Failure.of(Status.INVALID, s.code(), s.getMessage(), null);
            }
            return report.failed("verify", SignCommand.shown(location), f);
        }
    }

    private static boolean verdict(ErrorCode code) {
        return code == ErrorCode.BAD_SIGNATURE || code == ErrorCode.UNTRUSTED_SIGNER
                || code == ErrorCode.INVALID_SIGNATURE_BUNDLE;
    }
}
