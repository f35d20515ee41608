package dev.safetensors.cli.arguments;

import dev.safetensors.Limits;
import java.io.PrintStream;
import java.net.URI;
import dev.safetensors.cli.backends.S3Settings;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.Output;

/** The options every subcommand takes, mixed into each of them ({@code --jobs} is {@link JobsOption}'s). */
public final class CommonOptions {
    /** {@code --json}: results as JSON Lines on stdout. */
    public boolean json;
    Policy policy = Policy.STRICT;
    Long maxHeaderBytes;
    URI s3Endpoint;
    boolean s3PathStyle;
    /** {@code --debug}: stack traces and the library's log on stderr. */
    public boolean debug;
    /** {@code --quiet}: no progress bar and no summary line. */
    public boolean quiet;
    private Output output;

    /** @param spec the command that takes these options; they are added in the order its help lists them */
    public void declare(CommandSpec spec) {
        spec.option(OptionSpec.flag("--json", "Print JSON Lines: one object per result, then a summary object"
                        + " (schema: docs/cli.schema.json, described in docs/cli.md).", () -> json = true))
                .option(OptionSpec.value("--policy", "POLICY", "Validation policy: strict (the default) or official"
                        + " (the official Rust crate's bounds: " + Limits.OFFICIAL.maxHeaderBytes() + "-byte headers, all "
                        + Limits.OFFICIAL.acceptedDtypes().size() + " dtypes; duplicate keys and unknown tensor fields"
                        + " stay refused).",
                        v -> policy = OptionValue.policy(v)))
                .option(OptionSpec.value("--max-header-bytes", "N", "Largest header accepted, in bytes (strict"
                        + " default " + Limits.STRICT.maxHeaderBytes() + ").", v -> maxHeaderBytes = OptionValue.longInteger(v)))
                .option(OptionSpec.value("--s3-endpoint", "URL", "S3-compatible endpoint for s3:// sources, such as"
                        + " http://127.0.0.1:9000 (default: the AWS SDK configuration).",
                        v -> s3Endpoint = OptionValue.uri(v)))
                .option(OptionSpec.flag("--s3-path-style", "Address S3 buckets as ENDPOINT/BUCKET/KEY, as MinIO and"
                        + " most S3-compatible stores need.", () -> s3PathStyle = true))
                .option(OptionSpec.flag("--quiet", "Draw no progress bar, even on a terminal (results and errors are"
                        + " still printed).", () -> quiet = true))
                .option(OptionSpec.flag("--debug", "Print the stack trace behind each failure, and the libraries'"
                        + " debug log (requests, retries) on stderr.", () -> debug = true));
    }

    /**
     * @return the policy, with {@code --max-header-bytes} applied
     * @throws UsageException if the bound is out of range
     */
    public Limits limits() {
        if (maxHeaderBytes == null) {
            return policy.limits();
        }
        try {
            return policy.limits().toBuilder().maxHeaderBytes(maxHeaderBytes).build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("--max-header-bytes: " + e.getMessage());
        }
    }

    /** @return an opener for this run's sources, whose providers are constructed with the S3 options */
    public SourceOpener opener() {
        return new SourceOpener(s3Endpoint == null && !s3PathStyle ? S3Settings.NONE
                : new S3Settings(s3Endpoint, s3PathStyle));
    }

    /**
     * @param out stdout
     * @param err stderr
     * @return the output for this run: the same one each time for the same streams, so that one summary counts every
     *         result of the run
     */
    public Output output(PrintStream out, PrintStream err) {
        if (output == null || !output.writesTo(out, err)) {
            output = new Output(out, err, json, debug, quiet);
        }
        return output;
    }

    /**
     * Ends the run of a subcommand whose results went through {@link #output}: under {@code --json}, its
     * {@code summary} object closes stdout.
     *
     * @param command  the subcommand
     * @param exitCode the process's exit status
     * @return {@code exitCode}
     */
    public int finish(String command, int exitCode) {
        return output == null ? exitCode : output.close(command, exitCode);
    }
}
