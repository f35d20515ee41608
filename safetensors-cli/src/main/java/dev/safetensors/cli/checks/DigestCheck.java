package dev.safetensors.cli.checks;

import dev.safetensors.ErrorCode;
import dev.safetensors.core.Sha256Channel;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;

import java.io.IOException;
import java.util.Locale;
import java.util.function.Function;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * The checks of {@code verify} and {@code manifest}: the header checks, then the size, then the SHA-256 of the whole
 * object streamed once. Every check runs even after an earlier one failed (a truncated download shows a broken
 * layout, a wrong size and a wrong digest), except that nothing more is read once the source itself fails. An index
 * file ({@code *.safetensors.index.json}, examined as a file of its own by {@code manifest} and {@code verify}) has
 * no safetensors header: it gets the size and SHA-256 checks only (its content is checked when it is expanded).
 *
 * <p>{@code manifest} without {@code --compute} does not stream an object whose server already reported its
 * SHA-256 (the Hub's {@code X-Linked-Etag} of an LFS file): the manifest records that digest, labelled as reported.
 */
public final class DigestCheck implements FileCheck {
    private final SourceOpener opener;
    private final Limits limits;
    private final Function<Target.File, Expected> expected;
    private final boolean trustReported;
    private final ProgressBar progress;

    /**
     * @param opener        opens the sources
     * @param limits        the validation policy
     * @param expected      what each file is expected to be
     * @param trustReported whether a digest the server reported may replace streaming the object
     * @param progress      told about the bytes to read and read
     */
    public DigestCheck(SourceOpener opener, Limits limits, Function<Target.File, Expected> expected,
                       boolean trustReported, ProgressBar progress) {
        this.opener = opener;
        this.limits = limits;
        this.expected = expected;
        this.trustReported = trustReported;
        this.progress = progress;
    }

    @Override
    public SourceResult check(Target.File file) {
        SourceResult.Builder result = HeaderCheck.start(file);
        try (RandomAccessSource source = opener.open(file.location())) {
            try {
                examine(file, source, result, expected.apply(file));
            } finally {
                HeaderCheck.finish(source, result);
            }
        } catch (IOException | RuntimeException e) {
            result.fail(Failure.from(e, file.location().display()));
        }
        PrefixHint.add(result, file, opener);
        return result.build();
    }

    private void examine(Target.File file, RandomAccessSource source, SourceResult.Builder result, Expected want)
            throws IOException {
        if (!file.location().isIndex()) {
            HeaderCheck.validate(source, result, limits);
            if (result.status() == Status.ERROR) {
                return;
            }
        }
        long size = source.size();
        result.fileBytes(size);
        if (want.size() >= 0) {
            checkSize(result, size, want.size());
        }
        if (trustReported && source.identity().linkedSha256() != null) {
            return;
        }
        progress.grow(size);
        String sha256 = Sha256Channel.sha256(source, 0, size, progress::advance);
        result.sha256(sha256);
        if (want.sha256() != null) {
            result.sha256ComparedWith(want.sha256From());
            checkSha256(result, sha256, want);
        }
    }

    private static void checkSize(SourceResult.Builder result, long size, long wanted) {
        if (size == wanted) {
            result.pass(Check.SIZE);
        } else {
            result.fail(Failure.of(Status.INVALID, ErrorCode.SIZE_MISMATCH, String.format(Locale.ROOT,
                    "the object has %,d bytes, %,d were expected", size, wanted), Check.SIZE));
        }
    }

    private static void checkSha256(SourceResult.Builder result, String sha256, Expected want) {
        if (sha256.equals(want.sha256())) {
            result.pass(Check.SHA256);
        } else {
            result.fail(Failure.of(Status.INVALID, ErrorCode.SHA256_MISMATCH, "the SHA-256 computed here is " + sha256
                    + ", " + want.sha256From() + " says " + want.sha256(), Check.SHA256));
        }
    }
}
