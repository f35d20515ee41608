package dev.safetensors.cli.commands;

import dev.safetensors.Location;
import dev.safetensors.CheckpointLimits;
import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.SafetensorsException;
import dev.safetensors.Sha256;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.JobsOption;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.OptionValue;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.checks.Batch;
import dev.safetensors.cli.checks.CheckRun;
import dev.safetensors.cli.checks.DigestCheck;
import dev.safetensors.cli.checks.Expected;
import dev.safetensors.cli.checks.FileCheck;
import dev.safetensors.cli.checks.HubLocation;
import dev.safetensors.cli.checks.ManifestEntry;
import dev.safetensors.cli.checks.ManifestFile;
import dev.safetensors.cli.checks.ManifestMatch;
import dev.safetensors.cli.checks.Target;
import dev.safetensors.cli.output.CommandJson;
import dev.safetensors.cli.output.Output;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.output.TextFormatter;
import dev.safetensors.cli.output.UsageJson;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/** {@code safetensors verify}: a file against an expected size and SHA-256, or every file of a manifest. */
public final class VerifyCommand extends Subcommand {

    final CommonOptions common = new CommonOptions();

    final JobsOption jobs = new JobsOption();

    String sha256;

    Long size;

    Path manifest;

    String signature;

    String publicKey;

    final List<String> trustAnchors = new ArrayList<>();

    final List<String> ignorePaths = new ArrayList<>();

    boolean ignoreUnsignedFiles;

    String identity;

    String issuer;

    String trustRoot;

    final SourceArguments selection = new SourceArguments();

    final List<String> sources = new ArrayList<>();

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("verify", List.of("Stream each file once and compare its size and"
                + " SHA-256 with what is expected, after the"
                + " header checks. The result names every check performed (prefix, header, layout, size, sha256)"
                + " and its outcome.",
                "The SHA-256 is always computed locally. A manifest entry that holds only the digest the Hub"
                        + " reported is compared against that digest, and the result says so.",
                "With --manifest and locations (files, folders and prefixes, --recursive, --include, --exclude,"
                        + " --from-file, -), every file they hold must have an entry (else INVALID,"
                        + " NOT_IN_MANIFEST) and is verified against it; an entry in a listed folder or prefix that"
                        + " no file matches is an ERROR (NOT_FOUND). Results stream; a summary closes the run on"
                        + " stderr."),
                List.of("", "Examples:",
                "  safetensors verify model.safetensors --sha256 3f5a...e1 --size 548105171",
                "  safetensors manifest hf://openai-community/gpt2 > gpt2.manifest.json",
                "  safetensors verify --manifest gpt2.manifest.json",
                "  safetensors manifest --recursive s3://bucket/run-42/ > run-42.manifest.json",
                "  safetensors verify --manifest run-42.manifest.json --recursive s3://bucket/run-42/"));
        common.declare(spec);
        jobs.declare(spec);
        selection.declare(spec);
        spec.option(OptionSpec.value("--sha256", "HEX", "The expected SHA-256, 64 hex digits.",
                v -> sha256 = v));
        spec.option(OptionSpec.value("--size", "N", "The expected size in bytes.",
                v -> size = OptionValue.longInteger(v)));
        spec.option(OptionSpec.value("--manifest", "FILE", "Verify every file a manifest lists (written by"
                + " 'safetensors manifest').",
                v -> manifest = OptionValue.path(v)));
        spec.option(OptionSpec.value("--signature", "FILE", "Verify an OpenSSF Model Signing bundle (model.sig) over"
                + " the model at SOURCE (a folder, a file, a prefix): its signature against --public-key,"
                + " --trust-anchor, or --identity and --issuer (keyless Sigstore), then every file against the"
                + " signed manifest (see docs/signing.md).",
                v -> signature = v));
        spec.option(OptionSpec.value("--public-key", "PEM", "With --signature: the signer's public key.",
                v -> publicKey = v));
        spec.option(OptionSpec.value("--trust-anchor", "PEM", "With --signature: a CA certificate the signing"
                + " certificate's chain must lead to (repeatable).", trustAnchors::add).repeated());
        spec.option(OptionSpec.value("--ignore", "PATH", "With --signature: a path below SOURCE to leave out"
                + " besides those the bundle records (repeatable): relative to it, or absolute inside a local"
                + " folder; a signed file left out is missing.", ignorePaths::add).repeated());
        spec.option(OptionSpec.flag("--ignore-unsigned-files", "With --signature: leave out files the manifest"
                + " does not list instead of reporting them.", () -> ignoreUnsignedFiles = true));
        spec.option(OptionSpec.value("--identity", "ID", "With --signature: the keyless (Sigstore) signer's"
                + " identity, the email address or URI its Fulcio certificate names, compared exactly. Verified"
                + " offline against Sigstore's public-good trusted root shipped with this version.",
                v -> identity = v));
        spec.option(OptionSpec.value("--issuer", "URL", "With --signature and --identity: the identity's OIDC"
                + " issuer, compared exactly (https://accounts.google.com,"
                + " https://token.actions.githubusercontent.com, ...).", v -> issuer = v));
        spec.option(OptionSpec.value("--trust-root", "FILE", "With --identity: the Sigstore trusted_root.json to"
                + " verify against instead of the shipped public-good one (a newer one, or another instance's"
                + " such as staging); default: $" + SignatureCheck.TRUST_ROOT_VARIABLE + " if set.",
                v -> trustRoot = v));
        spec.positional(new PositionalSpec("SOURCE", 0, PositionalSpec.MANY, "The file to verify (with --sha256);"
                + " with --manifest, the files, folders and prefixes (ending in /) whose files must match the"
                + " manifest one to one, or - for one location a line on standard input.",
                v -> sources.add(v)));
        return spec;
    }

    @Override
    public int call() {
        if (signature != null || publicKey != null || !trustAnchors.isEmpty() || identity != null || issuer != null
                || trustRoot != null || !ignorePaths.isEmpty() || ignoreUnsignedFiles) {
            return verifySignature();
        }
        Output output = common.output(out, err);
        Map<Target.File, Expected> expected = new HashMap<>();
        List<Target> targets = new ArrayList<>();
        boolean listed = !sources.isEmpty() || selection.fromFile != null;
        if (manifest == null && (selection.recursive || !selection.include.isEmpty() || !selection.exclude.isEmpty()
                || selection.fromFile != null || sources.contains("-"))) {
            throw usage("--recursive, --include, --exclude, --from-file and - select files to check against a"
                    + " manifest: give --manifest FILE");
        }
        if (manifest != null) {
            if (sha256 != null || size != null) {
                throw usage("--manifest takes no --sha256 or --size: the manifest lists them");
            }
            List<ManifestEntry> entries;
            try {
                entries = ManifestFile.read(manifest, CheckpointLimits.DEFAULT);
            } catch (IOException e) {
                String why = e instanceof SafetensorsException s ? s.detail() : Failure.from(e, manifest.toString())
                        .message();
                output.error(manifest + ": cannot read the manifest: " + why + " [" + ErrorCode.of(e) + "]", e);
                if (common.json) {
                    // the run failed as a whole: its summary says why, as reshard's and download's do
                    out.println(CommandJson.failure("verify", manifest.toString(), null, Failure.of(Status.ERROR,
                            ErrorCode.of(e), "cannot read the manifest: " + why, null)));
                    out.flush();
                }
                return Status.ERROR.exitCode();
            } catch (IllegalArgumentException e) {
                output.error(manifest + ": not a valid manifest: " + e.getMessage(), e);
                if (common.json) {
                    // a manifest that is not one is a usage error (exit 2), said as every usage error is
                    out.println(UsageJson.line("safetensors verify", manifest + ": not a valid manifest: "
                            + e.getMessage()));
                    out.flush();
                }
                return Status.USAGE;
            }
            if (listed) {
                return verifyListed(entries, output);
            }
            for (ManifestEntry entry : entries) {
                Target.File file = Target.File.of(Location.parse(entry.source()));
                expected.put(file, entry.expected());
                targets.add(file);
            }
        } else {
            if (sources.isEmpty()) {
                throw usage("give a SOURCE with --sha256 HEX, or --manifest FILE");
            }
            if (sources.size() > 1) {
                throw usage("--sha256 verifies one SOURCE; to verify several, record them with 'safetensors"
                        + " manifest' and check them with 'verify --manifest FILE [LOCATION...]'");
            }
            String source = sources.get(0);
            if (sha256 == null) {
                throw usage("--sha256 HEX is required with a SOURCE: verify compares, it never just says"
                        + " 'verified' (to record digests, use 'safetensors manifest')");
            }
            if (!Sha256.isHex(sha256)) {
                throw usage("--sha256 must be 64 hex digits");
            }
            if (size != null && size < 0) {
                throw usage("--size must not be negative");
            }
            Location location = Location.parse(source);
            if (location.isIndex() || HubLocation.isRepository(location)) {
                throw usage("verify checks one file; for a sharded checkpoint, record its shards with 'safetensors"
                        + " manifest' and check them with 'verify --manifest'");
            }
            Target.File file = Target.File.of(location);
            expected.put(file, new Expected(size == null ? -1 : size, sha256, "--sha256"));
            targets.add(file);
        }
        SourceOpener opener = common.opener();
        int files = jobs.value();
        try (ProgressBar bar = output.startProgress(0, ProgressBar.Unit.BYTES)) {
            FileCheck check = new DigestCheck(opener, common.limits(), expected::get, false, bar);
            Status worst = new Batch(files, () -> { }).run(targets, check,
                    r -> output.result(r, false, TextFormatter::verifyLine));
            return common.finish("verify", worst.exitCode());
        }
    }

    /** {@code --signature}: the model at the one SOURCE against an OMS bundle. */
    private int verifySignature() {
        if (signature == null) {
            throw usage("--public-key, --trust-anchor, --identity, --issuer, --trust-root, --ignore and"
                    + " --ignore-unsigned-files go with --signature FILE");
        }
        if (manifest != null || sha256 != null || size != null || selection.recursive || selection.fromFile != null
                || !selection.include.isEmpty() || !selection.exclude.isEmpty()) {
            throw usage("--signature verifies one model against its bundle: no --manifest, --sha256, --size or"
                    + " selection options");
        }
        if (sources.size() != 1 || sources.get(0).equals("-")) {
            throw usage("--signature verifies one model: give its folder, file or prefix as SOURCE");
        }
        boolean keyless = identity != null || issuer != null || trustRoot != null;
        if (keyless && (identity == null || issuer == null)) {
            throw usage("keyless verification needs both --identity ID and --issuer URL");
        }
        int methods = (publicKey != null ? 1 : 0) + (trustAnchors.isEmpty() ? 0 : 1) + (keyless ? 1 : 0);
        if (methods != 1) {
            throw usage("--signature needs one way to trust its signer: --public-key PEM, --trust-anchor PEM, or"
                    + " --identity ID --issuer URL (keyless)");
        }
        if (keyless) {
            String root = trustRoot != null ? trustRoot : SignatureCheck.trustRootFromEnvironment(System.getenv());
            return new SignatureCheck(sources.get(0), signature, null, List.of(),
                    new SignatureCheck.Keyless(identity, issuer, root), ignorePaths, ignoreUnsignedFiles,
                    common.json, common.debug).run(common.opener(), out, err);
        }
        return new SignatureCheck(sources.get(0), signature, publicKey, trustAnchors, null, ignorePaths,
                ignoreUnsignedFiles, common.json, common.debug).run(common.opener(), out, err);
    }

    /** The files of the listed locations against the manifest, one to one: results stream, a summary closes. */
    private int verifyListed(List<ManifestEntry> entries, Output output) {
        SourceOpener opener = common.opener();
        ManifestMatch match = new ManifestMatch(entries, selection, opener, common.limits());
        selection.indexFiles = true;
        return common.finish("verify", CheckRun.stream(sources, selection, opener, common.limits(), jobs.value(),
                output, err, match, r -> output.result(r, false, TextFormatter::verifyLine), match::missing));
    }

    private static UsageException usage(String message) {
        return new UsageException(message);
    }
}
