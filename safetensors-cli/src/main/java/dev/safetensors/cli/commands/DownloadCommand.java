package dev.safetensors.cli.commands;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.DownloadRequest;
import dev.safetensors.core.DownloadResult;
import dev.safetensors.core.DownloadTarget;
import dev.safetensors.core.MirrorResult;
import dev.safetensors.core.MirroredObject;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.core.DownloadedFile;
import dev.safetensors.core.FileDownload;
import dev.safetensors.core.OutputFolder;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.http.HubCache;
import dev.safetensors.http.HubRepository;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.RemoteReadOptions;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.output.CommandJson;
import dev.safetensors.cli.output.Output;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.output.Sanitized;
import dev.safetensors.cli.output.Terminal;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/**
 * {@code safetensors download}: the files of a checkpoint, a repository, a folder or a prefix (or those the
 * {@code --include}/{@code --exclude} globs select) to a folder or into the Hugging Face cache, every header
 * validated before any payload, through the library's download service ({@link SafetensorsClient#download}).
 */
public final class DownloadCommand extends Subcommand {

    final CommonOptions common = new CommonOptions();
    final RemoteReadOptions remote = new RemoteReadOptions();
    final List<String> include = new ArrayList<>();
    final List<String> exclude = new ArrayList<>();
    String folder;
    boolean cache;
    boolean force;
    String source;

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("download", List.of("Download the files of a checkpoint (a file, an index"
                + " and its shards, or a Hub repository with its config.json files), or of a folder or prefix (s3://,"
                + " gs://, az://, hf://, a local folder: its checkpoint files at every level, the layout below it"
                + " kept), to a folder (--out) or into the Hugging Face cache that huggingface_hub shares (--cache:"
                + " HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub). With --include or --exclude,"
                + " every file of the repository, folder or prefix whose name the globs select, as"
                + " huggingface_hub's snapshot_download allow_patterns and ignore_patterns.",
                "Every .safetensors header (known by the file name, whatever a URL's query holds) is validated"
                        + " before any payload byte of any file is fetched: with an invalid one, nothing is downloaded"
                        + " unless --force."
                        + " Files come in parallel parts; an interrupted download is continued from its partial file"
                        + " only if the object is still the version the partial file records; the SHA-256 the store"
                        + " publishes (the Hub's, for LFS files) is verified before the file is renamed into place."
                        + " A file already there counts as present only if its recorded version or SHA-256 says so."
                        + " Nothing partial is ever left under a final name, and nothing is written through a link."
                        + " Each line counts the requests that file cost (header check, fetch, the Hub's HEAD); the"
                        + " listing's are counted once, in the closing line."),
                List.of("", "Examples:",
                        "  safetensors download hf://openai-community/gpt2 --cache",
                        "  safetensors download hf://acme/model --include '*.json' --out model/",
                        "  safetensors download hf://acme/model@main/model.safetensors.index.json --out model/",
                        "  safetensors download s3://bucket/ckpt/ --exclude 'optimizer*' --out ckpt/"));
        common.declare(spec);
        remote.declare(spec);
        spec.option(OptionSpec.value("--out", "DIR", "Write the files under DIR, by their paths below SOURCE (a"
                + " file's or an index's folder); or mirror them into a store prefix (s3://bkt/mirror/, gs://, az://,"
                + " abfss://): each committed once its published SHA-256 matched, the indexes last; an existing"
                + " object is replaced only with --force.", v -> folder = v).alias("-o"));
        spec.option(OptionSpec.flag("--cache", "Write hf:// files into the Hugging Face cache, where huggingface_hub"
                + " and hf:// reads find them.", () -> cache = true));
        spec.option(OptionSpec.value("--include", "GLOB", "File names to download (repeatable): every file of the"
                + " repository, folder or prefix, every level, whose name matches; default its checkpoint files"
                + " (*.safetensors, *.safetensors.index.json, config.json).", include::add).repeated());
        spec.option(OptionSpec.value("--exclude", "GLOB", "File names never to download, even when included"
                + " (repeatable).", exclude::add).repeated());
        spec.option(OptionSpec.flag("--force", "Download files whose header is invalid too; into a store, replace"
                + " existing objects of the same names.", () -> force = true));
        spec.positional(new PositionalSpec("SOURCE", 1, 1, "A file, an index, a repository, a folder or a prefix.",
                v -> source = v));
        return spec;
    }

    @Override
    public int call() {
        if ((folder == null) == !cache) {
            throw new UsageException("name one destination: --out DIR or --cache");
        }
        DownloadRequest.Builder request = DownloadRequest.builder().force(force)
                .include(SourceArguments.compile("--include", include))
                .exclude(SourceArguments.compile("--exclude", exclude));
        Location where = Location.parse(source);
        Output output = common.output(out, err);
        // a usage error, so checked before the failures of the run are caught
        UploadOptions uploads = !cache && ReshardCommand.namesStore(folder) ? remote.uploadOptions() : null;
        try (ProgressBar bar = ProgressBar.start(err, 0, ProgressBar.Unit.BYTES, Terminal.stderr() && !common.json)) {
            request.listener(new DownloadRequest.Listener() {
                @Override
                public void starting(Location file, long size) {
                    bar.grow(size);
                }

                @Override
                public void fetched(long bytes) {
                    bar.advance(bytes);
                }

                @Override
                public void done(DownloadedFile file) {
                    bar.printAbove(() -> out.println(line(file, common.json)));
                }
            });
            Optional<Location> store = cache ? Optional.empty() : OutputFolder.store(folder);
            if (store.isPresent()) {
                // the run's registry: the source's backend and the destination's, each loaded once
                SafetensorsClient client = SafetensorsClient.builder().registry(common.opener().registry())
                        .limits(common.limits()).readOptions(remote.readOptions()).build();
                MirrorResult result = client.mirror(where, store.get(), request.build(), uploads);
                for (MirroredObject o : result.objects()) {
                    bar.printAbove(() -> out.println(line(o, common.json)));
                }
                summary(bar, result.objects().size(), 0, result.cost(), result.locatingCost());
                return 0;
            }
            SafetensorsClient client = common.opener().options(where, common.limits(), remote.readOptions());
            DownloadTarget target = cache ? HubCacheTarget.of(where, HubCache.fromEnvironment(), hub())
                    : DownloadTarget.folder(OutputFolder.local(folder));
            DownloadResult result = client.download(where, target, request.build());
            long present = result.files().stream().filter(DownloadedFile::present).count();
            summary(bar, result.files().size(), present, result.cost(), result.locatingCost());
            return 0;
        } catch (IOException | RuntimeException e) {
            String shown = where.display();
            Failure failure = Failure.from(e, shown);
            if (common.json) {
                // the output a write failure is about, as the exception names it
                String file = failure.code() == ErrorCode.WRITE_FAILED && e instanceof SafetensorsException s
                        && s.source() != null && !s.source().isEmpty() ? s.source() : null;
                out.println(CommandJson.failure("download", shown, file, failure));
                out.flush();
            } else {
                err.println("safetensors download: " + Sanitized.line(shown, 2000) + ": "
                        + Sanitized.line(failure.message(), 2000) + " [" + failure.code() + "]");
            }
            if (common.debug) {
                err.print(Sanitized.stackTrace(e));
            }
            return failure.status().exitCode();
        }
    }

    /** The closing line: a JSON summary, or a count on stderr. */
    private void summary(ProgressBar bar, int files, long present, SourceStatistics cost, SourceStatistics locating) {
        if (common.json) {
            out.println(CommandJson.summary("download", Status.VALID, 0, g -> {
                g.writeNumberProperty("results", files);
                g.writeNumberProperty("requests", locating.requests());
            }));
        } else {
            bar.printAbove(() -> err.println(files + " files (" + present + " present), " + requests(cost)
                    + "; finding them: " + requests(locating)));
        }
    }

    /**
     * The line printed for one file mirrored into a store, text or JSON, in the vocabulary of a download's line:
     * {@code output} the object, {@code outcome} {@code uploaded}.
     */
    static String line(MirroredObject o, boolean json) {
        String shown = o.source().display();
        if (!json) {
            return "uploaded    " + Sanitized.line(o.object().display(), 2000) + "  " + o.size() + " bytes, "
                    + requests(o.cost()) + (o.verified() ? ", sha256 verified" : ", sha256 " + o.sha256())
                    + o.storeChecksum().map(c -> ", store " + c).orElse("");
        }
        return CommandJson.object(g -> {
            g.writeStringProperty("source", shown);
            g.writeStringProperty("kind", "download");
            g.writeStringProperty("status", Status.VALID.json());
            g.writeStringProperty("outcome", "uploaded");
            g.writeStringProperty("output", o.object().display());
            g.writeNumberProperty("size", o.size());
            g.writeNumberProperty("requests", o.cost().requests());
            g.writeNumberProperty("exchanges", o.cost().exchanges());
            g.writeNumberProperty("resumed_from", 0);
            g.writeNumberProperty("fetched", o.size());
            g.writeStringProperty("sha256", o.sha256());
            g.writeBooleanProperty("verified", o.verified());
        });
    }

    private static HubRepository hub() throws InvalidLocationException {
        try {
            return new HubRepository();
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_ENDPOINT, "HF_ENDPOINT: " + e.getMessage());
        }
    }

    /**
     * The line printed for one file, text or JSON: the one place a download line is written. The source is named
     * by its display form (a signed URL's secrets never reach it); {@code requests} is what that file cost.
     */
    static String line(DownloadedFile d, boolean json) {
        Optional<FileDownload.Result> r = d.download();
        String shown = d.source().display();
        String status = d.present() ? "present" : "downloaded";
        OptionalLong size = r.isPresent() ? OptionalLong.of(r.get().size()) : sizeOf(d.path());
        if (!json) {
            if (d.present()) {
                return "present     " + d.path() + "  (" + Sanitized.line(shown, 2000) + ")";
            }
            FileDownload.Result done = r.get();
            return "downloaded  " + d.path() + "  " + done.size() + " bytes"
                    + (done.resumedFrom() > 0 ? ", resumed from " + done.resumedFrom() : "")
                    + ", " + requests(d.cost())
                    + (done.verified() ? ", sha256 verified" : done.sha256().map(s -> ", sha256 " + s).orElse(""));
        }
        return CommandJson.object(g -> {
            g.writeStringProperty("source", shown);
            g.writeStringProperty("kind", "download");
            g.writeStringProperty("status", Status.VALID.json());
            g.writeStringProperty("outcome", status);
            g.writeStringProperty("output", d.path().toString());
            if (size.isPresent()) {
                g.writeNumberProperty("size", size.getAsLong());
            }
            g.writeNumberProperty("requests", d.cost().requests());
            g.writeNumberProperty("exchanges", d.cost().exchanges());
            if (r.isPresent()) {
                g.writeNumberProperty("resumed_from", r.get().resumedFrom());
                g.writeNumberProperty("fetched", r.get().fetched());
                if (r.get().sha256().isPresent()) {
                    g.writeStringProperty("sha256", r.get().sha256().get());
                }
                g.writeBooleanProperty("verified", r.get().verified());
            }
        });
    }

    /** @return the requests, and the HTTP exchanges they took when those are more (redirects, retries) */
    private static String requests(SourceStatistics cost) {
        return cost.requests() + " requests" + (cost.exchanges() > cost.requests() ? " (" + cost.exchanges()
                + " HTTP exchanges)" : "");
    }

    /** The size of a file the cache already held, read locally (no request); empty if it cannot be read. */
    private static OptionalLong sizeOf(Path path) {
        try {
            return OptionalLong.of(Files.size(path));
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }
}
