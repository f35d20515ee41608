package dev.safetensors.cli.commands;

import dev.safetensors.signing.Manifest;
import dev.safetensors.signing.VerificationResult;
import dev.safetensors.cli.output.CommandJson;
import dev.safetensors.cli.output.Readable;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;
import tools.jackson.core.JsonGenerator;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * What {@code sign} and {@code verify --signature} print. Text: one line for the model, then, for a model that
 * differs from its signature, one line per file missing, extra or changed. JSON Lines: one object of {@code kind}
 * {@code signature} ({@code source} the model, {@code status}, {@code method}, {@code hash_type},
 * {@code file_count}, {@code subject_sha256}, {@code signer}; {@code output} the bundle written by {@code sign},
 * {@code signature} the bundle read by {@code verify}; {@code missing}, {@code extra}, {@code changed} when it
 * differs), then the {@code summary}. A failure is the summary every command fails with ({@link CommandJson#failure}).
 */
final class SignatureReport {
    private final PrintStream out;
    private final PrintStream err;
    private final boolean json;

    SignatureReport(PrintStream out, PrintStream err, boolean json) {
        this.out = out;
        this.err = err;
        this.json = json;
    }

    /** A model signed, its bundle written to {@code output}. */
    void signed(String source, String output, Manifest manifest, String signer) {
        if (json) {
            out.println(CommandJson.object(g -> {
                g.writeStringProperty("source", source);
                g.writeStringProperty("kind", "signature");
                g.writeStringProperty("status", Status.VALID.json());
                g.writeStringProperty("output", output);
                manifest(g, manifest, signer);
            }));
            out.println(CommandJson.summary("sign", Status.VALID, 0, g -> g.writeNumberProperty("results", 1)));
        } else {
            out.printf(Locale.ROOT, "signed %s: %s (%s, %s) by %s; signature in %s%n", Sanitized.line(source, 400),
                    Readable.plural(manifest.resources().size(), resourceWord(manifest)),
                    manifest.serialization().method().jsonName(), manifest.serialization().hashType(), signer,
                    Sanitized.line(output, 400));
        }
        out.flush();
    }

    /** A signature verified, and the model compared with it. */
    int verified(String source, String signature, VerificationResult result, String signer) {
        Status status = result.matches() ? Status.VALID : Status.INVALID;
        if (json) {
            out.println(CommandJson.object(g -> {
                g.writeStringProperty("source", source);
                g.writeStringProperty("kind", "signature");
                g.writeStringProperty("status", status.json());
                if (!result.matches()) {
                    g.writeStringProperty("code", "SHA256_MISMATCH");
                    g.writeStringProperty("message", difference(result));
                }
                g.writeStringProperty("signature", signature);
                manifest(g, result.manifest(), signer);
                names(g, "missing", result.missing());
                names(g, "extra", result.extra());
                names(g, "changed", result.mismatched());
            }));
            out.println(CommandJson.summary("verify", status, status.exitCode(),
                    g -> g.writeNumberProperty("results", 1)));
        } else if (result.matches()) {
            out.printf(Locale.ROOT, "OK          %s: signature by %s verified; %s match (%s, %s)%n",
                    Sanitized.line(source, 400), signer, Readable.plural(result.manifest().resources().size(),
                            resourceWord(result.manifest())), result.manifest().serialization().method().jsonName(),
                    result.manifest().serialization().hashType());
        } else {
            out.printf(Locale.ROOT, "INVALID     %s: signature by %s verified, but the model differs: %s%n",
                    Sanitized.line(source, 400), signer, difference(result));
            lines("missing", result.missing());
            lines("extra  ", result.extra());
            lines("changed", result.mismatched());
        }
        out.flush();
        return status.exitCode();
    }

    /** A run that failed as a whole: one line on stderr, or with {@code --json} the failing summary. */
    int failed(String command, String source, Failure f) {
        if (json) {
            out.println(CommandJson.failure(command, source, null, f));
            out.flush();
        } else {
            err.println("safetensors " + command + ": " + Sanitized.line(source, 400) + ": "
                    + Sanitized.line(f.message(), 2000) + " [" + f.code() + "]");
        }
        return f.status().exitCode();
    }

    private static String resourceWord(Manifest manifest) {
        return manifest.serialization().method().jsonName().equals("shards") ? "shard" : "file";
    }

    private static String difference(VerificationResult result) {
        return result.missing().size() + " missing, " + result.extra().size() + " not signed, "
                + result.mismatched().size() + " changed";
    }

    private void lines(String what, List<String> names) {
        for (String n : names) {
            out.println("  " + what + "  " + Sanitized.line(n, 1000));
        }
    }

    private static void manifest(JsonGenerator g, Manifest manifest, String signer) {
        g.writeStringProperty("method", manifest.serialization().method().jsonName());
        g.writeStringProperty("hash_type", manifest.serialization().hashType());
        g.writeNumberProperty("file_count", manifest.resources().size());
        g.writeStringProperty("subject_sha256", manifest.subjectDigest());
        g.writeStringProperty("signer", signer);
    }

    private static void names(JsonGenerator g, String field, List<String> names) {
        g.writeName(field);
        g.writeStartArray();
        for (String n : names) {
            g.writeString(n);
        }
        g.writeEndArray();
    }
}
