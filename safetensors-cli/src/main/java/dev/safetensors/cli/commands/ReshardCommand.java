package dev.safetensors.cli.commands;

import dev.safetensors.core.Sha256Channel;
import dev.safetensors.Location;
import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsException;
import dev.safetensors.StorageException;
import dev.safetensors.Limits;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Alignment;
import dev.safetensors.core.CastChannel;
import dev.safetensors.core.OutputFolder;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.core.ShardedWriter;
import dev.safetensors.core.TensorSource;
import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import dev.safetensors.cli.arguments.ByteSize;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.OptionValue;
import dev.safetensors.cli.arguments.PartMemory;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.RemoteReadOptions;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.OutOfMemory;
import dev.safetensors.cli.output.Output;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/**
 * {@code safetensors reshard}: split, merge or re-lay out a checkpoint into local shards, verified tensor by tensor, or
 * into a store prefix, verified by the store's checksums.
 */
public final class ReshardCommand extends Subcommand {

    final CommonOptions common = new CommonOptions();

    final RemoteReadOptions remote = new RemoteReadOptions();

    String source;

    Path outDir;

    /** The store prefix of {@code --out}, when it names one instead of a local folder. */
    Location outStore;

    String outText;

    String dtype;

    String maxShardSize = "5GB";

    boolean single;

    String prefix = "model";

    String align = "insertion";

    final List<String> metadata = new ArrayList<>();

    boolean force;

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("reshard", List.of("Write a checkpoint as shards of at most"
                + " --max-shard-size (sum of tensor bytes, as"
                + " huggingface_hub counts it) and an index, or as one file. SOURCE is anything the other commands"
                + " read: a file, an index, an hf:// repository, s3://, gs://, https://.",
                "Tensor bytes are streamed from the source to the new files, one tensor at a time; a remote tensor"
                        + " comes in --part-size parts, --parallel at once. Each tensor's SHA-256 is computed as it"
                        + " is read from the source, then again from the file it landed in after writing; the two"
                        + " must be equal, all before the first file is renamed into place. A run killed at any"
                        + " instant leaves the old checkpoint or the new one (finished by the next run); existing"
                        + " files are never replaced without --force."),
                List.of("", "Examples:",
                "  safetensors reshard model.safetensors --out shards --max-shard-size 2GB",
                "  safetensors reshard hf://openai-community/gpt2 --out gpt2 --single",
                "  safetensors reshard shards/model.safetensors.index.json --out merged --single --align 64"));
        common.declare(spec);
        remote.declare(spec);
        spec.positional(new PositionalSpec("SOURCE", 1, 1, "The checkpoint to read.",
                v -> source = v));
        spec.option(OptionSpec.value("--out", "DIR", "Local directory to write into (created if missing), or a store"
                + " prefix (s3://bkt/out/, gs://, az://, abfss://): shards are uploaded first, each verified by the"
                + " store's checksum, and the index last, in --part-size parts, --parallel at once.",
                v -> {
                    outText = v;
                    outDir = OptionValue.path(v);
                }).mandatory());
        spec.option(OptionSpec.value("--dtype", "TYPE", "Cast every F32, F16 and BF16 tensor to TYPE (F32, F16 or"
                + " BF16; round to nearest, ties to even); other dtypes are copied as they are.",
                v -> dtype = v));
        spec.option(OptionSpec.value("--max-shard-size", "SIZE", "Largest shard, with a unit: 5GB = 5*10^9 bytes,"
                + " 2GiB = 2*2^30 (default 5GB). A larger tensor gets a shard of its own; when everything fits,"
                + " one file is written.",
                v -> maxShardSize = v));
        spec.option(OptionSpec.flag("--single", "Write one file, whatever its size (a merge).",
                () -> single = true));
        spec.option(OptionSpec.value("--prefix", "NAME", "File name prefix: NAME-00001-of-00003.safetensors,"
                + " NAME.safetensors.index.json (default model).",
                v -> prefix = v));
        spec.option(OptionSpec.value("--align", "LAYOUT", "insertion (keep the source's order), dtype (largest"
                + " element size first, as the official writer: every tensor starts at a multiple of its element"
                + " size) or N (a power of two from 8: the payload and as many tensors as possible start at"
                + " multiples of N; see docs/writing.md).",
                v -> align = v));
        spec.option(OptionSpec.value("--metadata", "KEY=VALUE", "Set or replace a metadata entry in every output"
                + " file (repeatable); the strict rules' bounds apply.",
                metadata::add).repeated());
        spec.option(OptionSpec.flag("--force", "Replace existing output files of the same names, and delete the"
                + " files of an earlier layout with the same prefix once the new files are in place.",
                () -> force = true));
        return spec;
    }

    @Override
    public int call() {
        if (outText != null && outText.isEmpty()) {
            throw usage("--out: name a folder to write into (an empty path would be the current folder)");
        }
        long maxBytes = single ? Long.MAX_VALUE : size();
        Alignment alignment = alignment();
        DType cast = cast();
        Limits limits = common.limits();
        ReadOptions readOptions = remote.readOptions();
        PartMemory.check(readOptions, Runtime.getRuntime().maxMemory());
        Map<String, String> extra = metadata(limits);
        ShardedWriter writer;
        try {
            writer = ShardedWriter.create(maxBytes, limits).prefix(prefix).alignment(alignment).replaceExisting(force);
        } catch (IllegalArgumentException e) {
            throw usage("--prefix: " + e.getMessage());
        }
        SourceOpener opener = common.opener();
        Output output = common.output(out, err);
        ReshardReport report = new ReshardReport(out, common.json);
        String shown = Location.parse(source).display();
        ReshardInput input;
        // a usage error, so checked before the failures of the run are caught
        UploadOptions uploads = namesStore(outText) ? remote.uploadOptions() : null;
        try {
            outStore = OutputFolder.store(outText).orElse(null);
            if (outStore == null) {
                outDir = OutputFolder.local(outText);
            } else {
                // a store no backend writes is refused before the source is read
                opener.registry().writer(outStore);
            }
            input = ReshardInput.open(source, opener, limits, readOptions);
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            return failed(output, report, shown, failure(e, shown));
        }
        try (input) {
            return reshard(input, writer.metadata(input.metadata()).metadata(extra), cast, output, report, limits,
                    opener, uploads);
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            return failed(output, report, shown, failure(e, shown));
        }
    }

    private int reshard(ReshardInput input, ShardedWriter writer, DType cast, Output output, ReshardReport report,
                        Limits limits, SourceOpener opener, UploadOptions uploads) throws IOException {
        Map<String, String> read = new ConcurrentHashMap<>();
        long total = 0;
        for (ReshardInput.Tensor t : input.tensors()) {
            TensorInfo info = t.info();
            total += cast != null && CastChannel.converts(info.dtype(), cast)
                    ? CastChannel.convertedLength(info.dtype(), cast, info.byteLength()) : info.byteLength();
        }
        Map<Path, List<ReshardReport.Landed>> landed = new LinkedHashMap<>();
        int[] mismatches = {0};
        List<Path> written;
        if (outStore != null) {
            return reshardToStore(input, writer, cast, output, report, limits, opener, uploads, total);
        }
        try (ProgressBar bar = output.startProgress(total, ProgressBar.Unit.BYTES).passes("written", "verified")) {
            addTensors(input, writer, cast, bar, read);
            int shards = (int) writer.fileNames().stream().filter(n -> !n.endsWith(Location.INDEX_SUFFIX)).count();
            writer.check((target, staged) -> {
                List<ReshardReport.Landed> l = verify(staged, limits, read, bar);
                mismatches[0] += (int) l.stream().filter(x -> !x.verified()).count();
                landed.put(target, l);
                if (landed.size() == shards && mismatches[0] > 0) {
                    throw new StorageException(ErrorCode.WRITE_FAILED, target.toString(), "read back differs");
                }
            });
            try {
                written = writer.writeTo(outDir);
            } catch (IOException e) {
                if (mismatches[0] > 0) {
                    bar.close();
                    landed.forEach((file, l) -> report.shard(file.toString(), -1, l, false));
                    report.summary(input.name(), 0, input.tensors().size(), total, mismatches[0], input.requests());
                    return Status.INVALID.exitCode();
                }
                throw e;
            }
        }
        // the bar is closed: nothing redraws after the summary
        for (Path file : written) {
            if (file.getFileName().toString().endsWith(Location.INDEX_SUFFIX)) {
                report.index(file.toString(), sizeOf(file));
            } else {
                report.shard(file.toString(), sizeOf(file), landed.getOrDefault(file, List.of()), true);
            }
        }
        report.summary(input.name(), written.size(), input.tensors().size(), total, 0, input.requests());
        return 0;
    }

    /**
     * Uploads the new layout to a store prefix: shards first, index last (see {@link ShardedWriter}). Each shard is
     * verified by the store's checksum of what it holds, not by a read back, which would download the checkpoint
     * again; its header is read back (one request) to report its tensors beside the digests read at the source.
     */
    private int reshardToStore(ReshardInput input, ShardedWriter writer, DType cast, Output output,
                               ReshardReport report, Limits limits, SourceOpener opener, UploadOptions uploads,
                               long total) throws IOException {
        Map<String, String> read = new ConcurrentHashMap<>();
        List<Location> written;
        try (ProgressBar bar = output.startProgress(total, ProgressBar.Unit.BYTES)) {
            addTensors(input, writer, cast, bar, read);
            written = writer.writeTo(outStore, opener.registry(), uploads);
        }
        for (Location object : written) {
            try (dev.safetensors.RandomAccessSource stored = opener.open(object)) {
                if (object.isIndex()) {
                    report.index(object.display(), stored.size());
                    continue;
                }
                List<ReshardReport.Landed> landed = new ArrayList<>();
                for (TensorInfo t : dev.safetensors.core.Safetensors.readHeader(stored, limits).tensors()) {
                    landed.add(new ReshardReport.Landed(t, read.get(t.name()), true));
                }
                landed.sort(java.util.Comparator.comparingLong(l -> l.info().begin()));
                report.shard(object.display(), stored.size(), landed, true);
            }
        }
        report.summary(input.name(), written.size(), input.tensors().size(), total, 0, input.requests());
        return 0;
    }

    /** Adds the source's tensors to the writer, each digested as it is read and counted on the bar. */
    private static void addTensors(ReshardInput input, ShardedWriter writer, DType cast, ProgressBar bar,
                                   Map<String, String> read) {
        for (ReshardInput.Tensor t : input.tensors()) {
            TensorInfo info = t.info();
            boolean converted = cast != null && CastChannel.converts(info.dtype(), cast);
            DType type = converted ? cast : info.dtype();
            long length = converted ? CastChannel.convertedLength(info.dtype(), cast, info.byteLength())
                    : info.byteLength();
            writer.tensor(info.name(), type, info.shape(), TensorSource.of(length, () ->
                    Sha256Channel.reading(converted ? CastChannel.of(info.dtype(), cast, t.open()) : t.open(),
                            length, bar::advance, d -> read.put(info.name(), d))));
        }
    }

    /** Reads every tensor back from the file it landed in and compares its digest with the one read at the source. */
    private static List<ReshardReport.Landed> verify(Path file, Limits limits, Map<String, String> read,
                                                     ProgressBar bar) throws IOException {
        List<ReshardReport.Landed> landed = new ArrayList<>();
        try (SafetensorsFile f = SafetensorsFile.open(file, limits)) {
            List<TensorInfo> inOrder = new ArrayList<>(f.header().tensors());
            inOrder.sort(java.util.Comparator.comparingLong(TensorInfo::begin));
            for (TensorInfo t : inOrder) {
                String[] digest = new String[1];
                try (Sha256Channel sink = Sha256Channel.sink(t.byteLength(), bar::advanceSecond,
                        d -> digest[0] = d)) {
                    f.copyTensorTo(t.name(), sink);
                }
                landed.add(new ReshardReport.Landed(t, digest[0], digest[0] != null
                        && digest[0].equals(read.get(t.name()))));
            }
        }
        return landed;
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * @return what failed: a write failure names the output file, anything else (a read of the source, a rule the
     *         source breaks) the source file it came from, never the {@code --out} folder
     */
    private Failure failure(Throwable e, String shown) {
        if (OutOfMemory.in(e)) {
            return OutOfMemory.failure(e);
        }
        Failure f = Failure.from(e, shown);
        if (f.code() == ErrorCode.ALREADY_EXISTS && !force) {
            return new Failure(f.status(), f.code(), f.message() + "; use --force to replace it", f.check(), e);
        }
        return f;
    }

    private int failed(Output output, ReshardReport report, String shown, Failure f) {
        Throwable e = f.cause();
        // the source that failed (a shard, an index), as the exception names it; the argument otherwise
        String named = e instanceof SafetensorsException s && s.source() != null && !s.source().isEmpty()
                ? s.source()
                : e instanceof java.nio.file.FileSystemException fs && fs.getFile() != null && !fs.getFile().isEmpty()
                ? fs.getFile() : shown;
        boolean write = f.code() == ErrorCode.WRITE_FAILED || f.code() == ErrorCode.ALREADY_EXISTS
                || f.code() == ErrorCode.CHECKSUM_MISMATCH;
        String source = write ? shown : named;
        if (common.json) {
            report.failure(source, write ? named : null, f);
        } else {
            output.error(Sanitized.line(named, 400) + ": " + f.message() + " [" + f.code() + "]", f.cause());
        }
        return f.status().exitCode();
    }

    /** @return whether an output location names a store prefix (a malformed one is reported where it is used) */
    static boolean namesStore(String location) {
        try {
            return OutputFolder.store(location).isPresent();
        } catch (IOException e) {
            return false;
        }
    }

    private DType cast() {
        if (dtype == null) {
            return null;
        }
        switch (dtype.toUpperCase(java.util.Locale.ROOT)) {
            case "F32":
                return DType.F32;
            case "F16":
                return DType.F16;
            case "BF16":
                return DType.BF16;
            default:
                throw usage("--dtype must be F32, F16 or BF16, was '" + Sanitized.line(dtype, 40) + "'");
        }
    }

    private long size() {
        try {
            return ByteSize.parse(maxShardSize);
        } catch (IllegalArgumentException e) {
            throw usage("--max-shard-size: " + e.getMessage());
        }
    }

    private Alignment alignment() {
        switch (align) {
            case "insertion":
                return Alignment.INSERTION_ORDER;
            case "dtype":
                return Alignment.DTYPE;
            default:
                try {
                    return Alignment.bytes(Integer.parseInt(align));
                } catch (IllegalArgumentException e) {
                    throw usage("--align must be insertion, dtype or a power of two from 8 to " + Alignment.MAX_BYTES
                            + ", was '" + Sanitized.line(align, 40) + "'");
                }
        }
    }

    /** Parses the --metadata entries and checks them against the rules before anything is read or written. */
    private Map<String, String> metadata(Limits limits) {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String m : metadata) {
            int eq = m.indexOf('=');
            if (eq <= 0) {
                throw usage("--metadata takes KEY=VALUE with a non-empty KEY, was '" + Sanitized.line(m, 80) + "'");
            }
            if (m.indexOf('\uFFFD') >= 0) {
                // the JVM decodes arguments before main sees them: bytes that are not UTF-8 arrive as U+FFFD
                throw usage("--metadata: '" + Sanitized.line(m, 80) + "' holds bytes that are not UTF-8 (or a U+FFFD"
                        + " replacement character): metadata is written as UTF-8, give it as UTF-8");
            }
            entries.put(m.substring(0, eq), m.substring(eq + 1));
        }
        try {
            SafetensorsWriter.create(limits).metadata(entries).header();
        } catch (InvalidHeaderException e) {
            throw usage("--metadata: " + Failure.from(e, "<metadata>").message() + " [" + e.code() + "]");
        } catch (IOException e) {
            throw usage("--metadata: " + e.getMessage());
        }
        return entries;
    }

    private static UsageException usage(String message) {
        return new UsageException(message);
    }
}
