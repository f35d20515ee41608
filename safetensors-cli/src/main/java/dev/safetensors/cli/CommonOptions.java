package dev.safetensors.cli;

import dev.safetensors.Limits;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.net.URI;

/** The options every subcommand takes, mixed into each of them ({@code --jobs} is {@link JobsOption}'s). */
final class CommonOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--json", description = "Print JSON Lines: one object per source (schema in the README).")
    boolean json;

    @Option(names = "--policy", paramLabel = "POLICY", description = "Validation policy: strict (the default) or"
            + " official (what the official Rust crate accepts: 100 MB headers, all 22 dtypes).")
    Policy policy = Policy.STRICT;

    @Option(names = "--max-header-bytes", paramLabel = "N", description = "Largest header accepted, in bytes"
            + " (strict default 8388608).")
    Long maxHeaderBytes;

    @Option(names = "--s3-endpoint", paramLabel = "URL", description = "S3-compatible endpoint for s3:// sources,"
            + " such as http://127.0.0.1:9000 (default: the AWS SDK configuration).")
    URI s3Endpoint;

    @Option(names = "--s3-path-style", description = "Address S3 buckets as ENDPOINT/BUCKET/KEY, as MinIO and"
            + " most S3-compatible stores need.")
    boolean s3PathStyle;

    @Option(names = "--debug", description = "Print the stack trace behind each failure, and the libraries' debug log"
            + " (requests, retries) on stderr.")
    boolean debug;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    /**
     * @return the policy, with {@code --max-header-bytes} applied
     * @throws ParameterException if the bound is out of range
     */
    Limits limits() {
        if (maxHeaderBytes == null) {
            return policy.limits();
        }
        try {
            return policy.limits().toBuilder().maxHeaderBytes(maxHeaderBytes).build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--max-header-bytes: " + e.getMessage());
        }
    }

    /**
     * @return an opener for this run's sources, with the S3 options applied
     * @throws ParameterException if S3 options are given and the S3 backend is not on the module path
     */
    SourceOpener opener() {
        if (s3Endpoint == null && !s3PathStyle) {
            return new SourceOpener(null);
        }
        if (!S3Settings.available()) {
            throw new ParameterException(spec.commandLine(), "--s3-endpoint and --s3-path-style need the S3 backend"
                    + " (dev.safetensors.s3) on the module path; bin/safetensors adds it when the command line names"
                    + " an s3:// source or an --s3- option");
        }
        return new SourceOpener(S3Settings.provider(s3Endpoint, s3PathStyle));
    }

    /**
     * @param out stdout
     * @param err stderr
     * @return the output for this run
     */
    Output output(PrintStream out, PrintStream err) {
        return new Output(out, err, json, debug);
    }
}
