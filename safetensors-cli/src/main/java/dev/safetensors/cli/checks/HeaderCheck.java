package dev.safetensors.cli.checks;

import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.FileSource;
import dev.safetensors.core.Safetensors;

import java.io.IOException;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;

/**
 * The header checks of {@code inspect} and {@code validate}: prefix, header and layout, read with the bounded prefix
 * read of the core library (one request when the header fits the prefetch size), nothing else.
 */
public final class HeaderCheck implements FileCheck {
    private final SourceOpener opener;
    private final Limits limits;

    /**
     * @param opener opens the sources
     * @param limits the validation policy
     */
    HeaderCheck(SourceOpener opener, Limits limits) {
        this.opener = opener;
        this.limits = limits;
    }

    @Override
    public SourceResult check(Target.File file) {
        SourceResult.Builder result = start(file);
        try (RandomAccessSource source = opener.open(file.location())) {
            try {
                validate(source, result, limits);
            } finally {
                finish(source, result);
            }
        } catch (IOException | RuntimeException e) {
            result.fail(Failure.from(e, file.location().display()));
        }
        PrefixHint.add(result, file, opener);
        return result.build();
    }

    /**
     * @param file the file
     * @return a builder for its result, with the cost already spent to find it
     */
    public static SourceResult.Builder start(Target.File file) {
        return SourceResult.builder(file.location().display(), file.kind()).checkpoint(file.checkpoint())
                .cost(file.extraCost());
    }

    /**
     * Reads and validates the header, recording the checks that passed, or the failure and the check it broke.
     *
     * @param source the open source
     * @param result where the outcome goes
     * @param limits the policy
     * @return the header, or {@code null} when it did not pass
     */
    static SafetensorsHeader validate(RandomAccessSource source, SourceResult.Builder result, Limits limits) {
        try {
            SafetensorsHeader header = Safetensors.readHeader(source, limits);
            passed(result, header);
            return header;
        } catch (IOException | RuntimeException e) {
            failed(result, e, source.name());
            return null;
        }
    }

    /**
     * @param result where the outcome goes
     * @param header the header that passed validation
     */
    public static void passed(SourceResult.Builder result, SafetensorsHeader header) {
        result.header(header).pass(Check.PREFIX).pass(Check.HEADER).pass(Check.LAYOUT);
    }

    /**
     * Records why header validation failed, and the checks that passed before the one that broke.
     *
     * @param result where the outcome goes
     * @param e      what validation threw
     * @param source the source's name
     */
    public static void failed(SourceResult.Builder result, Throwable e, String source) {
        Failure failure = Failure.from(e, source);
        if (failure.check() != null) {
            for (Check c : new Check[] {Check.PREFIX, Check.HEADER, Check.LAYOUT}) {
                if (c == failure.check()) {
                    break;
                }
                result.pass(c);
            }
        }
        result.fail(failure);
    }

    /**
     * Records the cost, the identity the source reported and, when no header gave it, the size it learned.
     *
     * @param source the source, still open
     * @param result where it goes
     */
    public static void finish(RandomAccessSource source, SourceResult.Builder result) {
        result.cost(source.statistics()).attributes(source.attributes());
        if (result.failed()) {
            try {
                // A local file knows its size without a request; a remote one only after a read that succeeded,
                // which a verdict on the content (a failed check) proves. After a failed read (404, 412, a range
                // not honoured) size() would cost one more request, uncounted and likely failing the same way.
                if (source instanceof FileSource || result.failedOnContent()) {
                    result.fileBytes(source.size());
                }
            } catch (IOException | RuntimeException e) {
                // the size stays unknown; the failure already says what went wrong
            }
        }
    }
}
