package dev.safetensors.cli.commands;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.core.AtomicFile;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.ShardIndex;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SafetensorsFile;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.OptionValue;
import dev.safetensors.cli.arguments.PartMemory;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.RemoteReadOptions;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.checks.HeaderCheck;
import dev.safetensors.cli.checks.HubLocation;
import dev.safetensors.cli.checks.Target;
import dev.safetensors.cli.output.Output;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.output.Readable;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.output.Sink;
import dev.safetensors.cli.output.Terminal;
import dev.safetensors.cli.output.TextFormatter;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/** {@code safetensors dump}: one tensor's bytes, raw or widened to float32. */
public final class DumpCommand extends Subcommand {
    /** {@link #dump} could not examine or read the source; the result says why. */
    private static final int SEE_RESULT = -1;

    final CommonOptions common = new CommonOptions();

    boolean f32;

    final RemoteReadOptions remote = new RemoteReadOptions();

    boolean binary;

    Path file;

    String source;

    String tensor;

    /** The file the tensor is read from: SOURCE, or the shard an index names. */
    private Location reading;

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("dump", List.of("Write one tensor to stdout or a file: its raw bytes"
                + " as stored (little-endian), or with --f32"
                + " its values widened to float32 (F32, F16 and BF16 tensors; with --policy official also F8_E4M3,"
                + " F8_E5M2, F8_E8M0, F8_E4M3FNUZ and F8_E5M2FNUZ), as text (one value per line) or,"
                + " with --binary, as little-endian float32.",
                "The header is validated first; the tensor is then read with one ranged read. Binary output is"
                        + " refused on a terminal: redirect it or use --out."),
                List.of("", "Examples:",
                "  safetensors dump model.safetensors lm_head.weight --out lm_head.bin",
                "  safetensors dump --f32 model.safetensors model.norm.weight | head",
                "  safetensors dump --f32 --binary hf://openai-community/gpt2/model.safetensors wte.weight >"
                        + " wte.f32"));
        common.declare(spec);
        spec.option(OptionSpec.flag("--f32", "Widen the values to float32 (F32, F16, BF16; with --policy official"
                + " also the 8-bit floats F8_E4M3, F8_E5M2, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ).",
                () -> f32 = true));
        remote.declare(spec);
        spec.option(OptionSpec.flag("--binary", "With --f32: write little-endian float32 instead of text.",
                () -> binary = true));
        spec.option(OptionSpec.value("--out", "FILE", "Write to FILE instead of stdout.",
                v -> file = OptionValue.path(v)).alias("-o"));
        spec.positional(new PositionalSpec("SOURCE", 1, 1, "The file that holds the tensor, or the"
                + " *.safetensors.index.json of a sharded checkpoint (the shard holding it is read).",
                v -> source = v));
        spec.positional(new PositionalSpec("TENSOR", 1, 1, "The tensor's name.",
                v -> tensor = v));
        return spec;
    }

    @Override
    public int call() {
        return common.finish("dump", run());
    }

    /** @return the exit code, once the result (under {@code --json}) or the confirmation is printed */
    private int run() {
        if (binary && !f32) {
            throw usage("--binary goes with --f32; a raw dump is always the stored bytes");
        }
        if (file == null && (!f32 || binary) && Terminal.stdout()) {
            throw usage("refusing to write binary data to a terminal: redirect stdout or use --out FILE");
        }
        if (file == null && common.json) {
            throw usage("--json describes what was written and needs --out FILE");
        }
        ReadOptions readOptions = remote.readOptions();
        PartMemory.check(readOptions, Runtime.getRuntime().maxMemory());
        Location location = Location.parse(source);
        if (HubLocation.isRepository(location)) {
            throw usage("dump reads one checkpoint: name its file or its *.safetensors.index.json (see 'safetensors"
                    + " inspect --tensors')");
        }
        // without --out, standard output is the data: every verdict goes to standard error, never into the data
        Output output = common.output(file == null ? err : out, err);
        if (location.isIndex()) {
            // read across shards: the index says which shard holds the tensor; that shard is dumped as a file is
            try {
                location = shardHolding(location);
            } catch (UsageException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                SourceResult.Builder failed = HeaderCheck.start(Target.File.of(Location.parse(source)));
                failed.fail(Failure.from(e, Location.parse(source).text()));
                SourceResult r = failed.build();
                output.result(r, false, TextFormatter::statusLine);
                return r.status().exitCode();
            }
        }
        reading = location;
        SourceResult.Builder result = HeaderCheck.start(Target.File.of(location));
        int code;
        try (RandomAccessSource src = common.opener().open(location)) {
            try {
                code = dump(src, result, output, readOptions);
            } finally {
                HeaderCheck.finish(src, result);
            }
        } catch (IOException | RuntimeException e) {
            result.fail(Failure.from(e, location.display()));
            code = SEE_RESULT;
        }
        SourceResult r = result.build();
        if (code == SEE_RESULT) {
            output.result(r, false, TextFormatter::statusLine);
            return r.status().exitCode();
        }
        if (common.json) {
            // what was written, or the failure dump() recorded: one JSON object either way
            output.result(r, false, TextFormatter::statusLine);
        }
        return code;
    }

    /** @return the exit code, or {@link #SEE_RESULT} when the result records the failure */
    private int dump(RandomAccessSource src, SourceResult.Builder result, Output output, ReadOptions readOptions)
            throws IOException {
        SafetensorsFile st;
        try {
            st = SafetensorsFile.open(src, common.limits(), false, readOptions);
        } catch (IOException | RuntimeException e) {
            HeaderCheck.failed(result, e, src.name());
            return SEE_RESULT;
        }
        HeaderCheck.passed(result, st.header());
        TensorInfo t = st.header().tensor(tensor).orElse(null);
        if (t == null) {
            String message = "no tensor named \"" + Sanitized.line(tensor, 200) + "\" among its "
                    + Readable.plural(st.header().tensors().size(), "tensor") + "; list them with 'safetensors"
                    + " inspect --tensors " + name() + "'";
            return refused(result, output, Failure.of(Status.ERROR, ErrorCode.TENSOR_NOT_FOUND, message,
                    null), name() + ": " + message, Status.USAGE);
        }
        long written;
        try (AtomicFile target = file == null ? null : openOutput();
             ProgressBar bar = output.startProgress(t.byteLength(), ProgressBar.Unit.BYTES)) {
            OutputStream sink = target == null ? Sink.of(out, Sink.STDOUT) : Sink.of(new BufferedOutputStream(
                    Channels.newOutputStream(target.channel()), 1 << 16), file.toString());
            written = f32 ? TensorDump.float32(st, t, sink, binary) : TensorDump.raw(st, t, sink, bar);
            if (target != null) {
                sink.flush();
                commit(target);
            }
        } catch (UnsupportedDtypeException | TensorAccessException e) {
            // the file is fine; what was asked of it is not: a usage error
            Failure f = Failure.from(e, src.name());
            String hint = switch (e.code()) {
                case NOT_FLOAT_READABLE -> "; dump it without --f32 for the raw bytes";
                case TOO_MANY_ELEMENTS -> "; --f32 widens at most " + common.limits().maxFloat32Elements()
                        + " elements in memory: dump the stored bytes without --f32 (streamed, any size) with --out"
                        + " FILE and widen them in blocks";
                default -> "";
            };
            f = new Failure(f.status(), f.code(), f.message() + hint, f.check(), e);
            return refused(result, output, f, name() + ": " + f.message() + " [" + f.code() + "]", Status.USAGE);
        } catch (StorageException e) {
            if (e.code() != ErrorCode.WRITE_FAILED) {
                throw e;
            }
            if (file == null) {
                // standard output's failure is reported once, by Main, like every command's
                return Status.ERROR.exitCode();
            }
            return refused(result, output, Failure.from(e, e.source()), e.source() + ": " + e.detail() + " ["
                    + e.code() + "]", Status.ERROR.exitCode());
        }
        if (file != null && !common.json) {
            out.printf(Locale.ROOT, "wrote %s of %s %s %s to %s%n", Readable.plural(written, f32 && !binary ? "value"
                    : "byte"), Sanitized.line(t.name(), 200), t.dtype(), Arrays.toString(t.shape()),
                    Sanitized.line(file.toString(), 400));
            out.flush();
        }
        return 0;
    }

    /**
     * Records why the dump was refused, for {@code --json}, or prints it as one line.
     *
     * @return {@code exit}
     */
    private int refused(SourceResult.Builder result, Output output, Failure f, String line, int exit) {
        result.fail(f);
        if (!common.json) {
            output.error(line, f.cause());
        }
        return exit;
    }

    /**
     * @param index the location of a {@code *.safetensors.index.json}
     * @return the location of the shard its weight map names for the tensor
     * @throws UsageException if the index does not name the tensor
     * @throws IOException    if the index cannot be read or is invalid
     */
    private Location shardHolding(Location index) throws IOException {
        CheckpointFiles files = common.opener().options(index, common.limits(), remote.readOptions())
                .locate(Location.parse(source));
        ShardIndex map = files.index().orElseThrow();
        String shard = map.weightMap().get(tensor);
        if (shard == null) {
            throw usage(name() + ": the index names no tensor \"" + Sanitized.line(tensor, 200) + "\" among its "
                    + Readable.plural(map.weightMap().size(), "tensor") + "; list them with 'safetensors inspect"
                    + " --tensors " + name() + "'");
        }
        return files.shards().get(map.shards().indexOf(shard));
    }

    /** @return the output file; it refuses to be the local file being read */
    private AtomicFile openOutput() throws StorageException {
        Location location = reading;
        Path input = null;
        try {
            input = location.isLocal() ? location.path() : null;
        } catch (IllegalArgumentException e) {
            // not a local path after all: there is no file to protect
        }
        try {
            return input == null ? AtomicFile.replacing(file) : AtomicFile.replacing(file, input);
        } catch (IOException e) {
            throw outputFailure(e);
        }
    }

    private void commit(AtomicFile target) throws StorageException {
        try {
            target.commit();
        } catch (IOException e) {
            throw outputFailure(e);
        }
    }

    /** Every failure of the output file is the output's: {@link ErrorCode#WRITE_FAILED}, naming it, not the source. */
    private StorageException outputFailure(IOException e) {
        if (e instanceof StorageException s && s.code() == ErrorCode.WRITE_FAILED) {
            return s;
        }
        if (e instanceof StorageException s) {
            return new StorageException(ErrorCode.WRITE_FAILED, file.toString(), s.detail(), s);
        }
        return Sink.failure(file.toString(), e);
    }

    private String name() {
        return Sanitized.line(source, 400);
    }

    private static UsageException usage(String message) {
        return new UsageException(message);
    }
}
