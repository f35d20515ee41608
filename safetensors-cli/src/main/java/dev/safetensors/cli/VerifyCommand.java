package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.SafetensorsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code safetensors verify}: a file against an expected size and SHA-256, or every file of a manifest. */
@Command(name = "verify", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Stream each file once and compare its size and SHA-256 with what is expected, after the"
                + " header checks. The result names every check performed (prefix, header, layout, size, sha256)"
                + " and its outcome.",
                "The SHA-256 is always computed locally. A manifest entry that holds only the digest the Hub"
                        + " reported is compared against that digest, and the result says so."},
        footer = {"", "Examples:",
                "  safetensors verify model.safetensors --sha256 3f5a...e1 --size 548105171",
                "  safetensors manifest hf://openai-community/gpt2 > gpt2.manifest.json",
                "  safetensors verify --manifest gpt2.manifest.json"})
final class VerifyCommand implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Mixin
    JobsOption jobs;

    @Option(names = "--sha256", paramLabel = "HEX", description = "The expected SHA-256, 64 hex digits.")
    String sha256;

    @Option(names = "--size", paramLabel = "N", description = "The expected size in bytes.")
    Long size;

    @Option(names = "--manifest", paramLabel = "FILE", description = "Verify every file a manifest lists"
            + " (written by 'safetensors manifest').")
    Path manifest;

    @Parameters(arity = "0..1", paramLabel = "SOURCE", description = "The file to verify (with --sha256).")
    String source;

    /**
     * @param out stdout
     * @param err stderr
     */
    VerifyCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        Output output = common.output(out, err);
        Map<Target.File, Expected> expected = new HashMap<>();
        List<Target> targets = new ArrayList<>();
        if (manifest != null) {
            if (source != null || sha256 != null || size != null) {
                throw usage("--manifest takes no SOURCE, --sha256 or --size: the manifest lists them");
            }
            List<ManifestEntry> entries;
            try {
                entries = ManifestFile.read(manifest);
            } catch (IOException e) {
                String why = e instanceof SafetensorsException s ? s.detail() : Failure.from(e, manifest.toString())
                        .message();
                output.error(manifest + ": cannot read the manifest: " + why + " [" + ErrorCode.of(e) + "]", e);
                return Status.ERROR.exitCode();
            } catch (IllegalArgumentException e) {
                output.error(manifest + ": not a valid manifest: " + e.getMessage(), e);
                return Status.USAGE;
            }
            for (ManifestEntry entry : entries) {
                Target.File file = Target.File.of(Location.parse(entry.source()));
                expected.put(file, entry.expected());
                targets.add(file);
            }
        } else {
            if (source == null) {
                throw usage("give a SOURCE with --sha256 HEX, or --manifest FILE");
            }
            if (sha256 == null) {
                throw usage("--sha256 HEX is required with a SOURCE: verify compares, it never just says"
                        + " 'verified' (to record digests, use 'safetensors manifest')");
            }
            if (!ContentDigest.isSha256(sha256)) {
                throw usage("--sha256 must be 64 hex digits");
            }
            if (size != null && size < 0) {
                throw usage("--size must not be negative");
            }
            Location location = Location.parse(source);
            if (location.isIndex() || location.isHubRepository()) {
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
            return worst.exitCode();
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
