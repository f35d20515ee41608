package dev.safetensors.cli;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.SafetensorsException;
import dev.safetensors.core.FileDownload;
import dev.safetensors.core.OutputFolder;
import dev.safetensors.http.HubCache;
import dev.safetensors.http.HubRepository;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

/** {@code safetensors download}: every file of a checkpoint to a folder or into the Hugging Face cache, verified. */
final class DownloadCommand implements Subcommand {

    private final PrintStream out;
    private final PrintStream err;

    final CommonOptions common = new CommonOptions();
    final RemoteReadOptions remote = new RemoteReadOptions();
    String folder;
    boolean cache;
    boolean force;
    String source;

    /**
     * @param out stdout
     * @param err stderr
     */
    DownloadCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("download", List.of("Download every file of a checkpoint (a file, an index"
                + " and its shards, or a Hub repository with its config.json files) to a folder (--out) or into the"
                + " Hugging Face cache that huggingface_hub shares (--cache: HF_HUB_CACHE, else HF_HOME/hub, else"
                + " ~/.cache/huggingface/hub).",
                "Every header is validated before any payload is fetched: a checkpoint that fails is not downloaded"
                        + " unless --force. Files come in parallel parts; an interrupted download is continued from"
                        + " its partial file only if the object is still the version the partial file records; the"
                        + " Hub's SHA-256 of each LFS file is verified before the file is renamed into place. A file"
                        + " already there counts as present only if its recorded version or SHA-256 says so. Nothing"
                        + " partial is ever left under a final name, and nothing is written through a link."),
                List.of("", "Examples:",
                        "  safetensors download hf://openai-community/gpt2 --cache",
                        "  safetensors download hf://acme/model@main/model.safetensors.index.json --out model/",
                        "  safetensors download s3://bucket/ckpt/model.safetensors.index.json --out ckpt/"));
        common.declare(spec);
        remote.declare(spec);
        spec.option(OptionSpec.value("--out", "DIR", "Write the files under DIR, by their paths in the repository"
                + " (or their names beside the index).", v -> folder = v).alias("-o"));
        spec.option(OptionSpec.flag("--cache", "Write hf:// files into the Hugging Face cache, where huggingface_hub"
                + " and hf:// reads find them.", () -> cache = true));
        spec.option(OptionSpec.flag("--force", "Download files whose header is invalid too.", () -> force = true));
        spec.positional(new PositionalSpec("SOURCE", 1, 1, "A file, an index or a repository.", v -> source = v));
        return spec;
    }

    @Override
    public int call() {
        if ((folder == null) == !cache) {
            throw new UsageException("name one destination: --out DIR or --cache");
        }
        Output output = common.output(out, err);
        try (ProgressBar bar = ProgressBar.start(err, 0, ProgressBar.Unit.BYTES, Terminal.stderr() && !common.json)) {
            HubCache hubCache = cache ? HubCache.fromEnvironment() : null;
            Downloader downloader = new Downloader(
                    common.opener().options(Location.parse(source), common.limits(), remote.readOptions()),
                    cache ? hub() : null,
                    common.limits(), remote.readOptions(), force, bar::grow, bar::advance);
            List<Downloader.Done> done = cache ? downloader.toCache(source, hubCache)
                    : downloader.toFolder(source, OutputFolder.local(folder));
            bar.printAbove(() -> done.forEach(d -> out.println(common.json ? json(d) : text(d))));
            if (common.json) {
                out.println(CommandJson.summary("download", Status.VALID, 0, g -> g.writeNumberProperty("results",
                        done.size())));
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            String shown = Location.parse(source).display();
            Failure failure = Failure.from(e, shown);
            if (common.json) {
                // the output a write failure is about, as the exception names it
                String file = failure.code().equals("WRITE_FAILED") && e instanceof SafetensorsException s
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

    private static HubRepository hub() throws InvalidLocationException {
        try {
            return new HubRepository();
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_ENDPOINT, "HF_ENDPOINT: " + e.getMessage());
        }
    }

    private static String text(Downloader.Done d) {
        FileDownload.Result r = d.result();
        if (r == null || r.skipped()) {
            return "present     " + d.path() + "  (" + Sanitized.line(Location.parse(d.source()).display(), 2000)
                    + ")";
        }
        return "downloaded  " + d.path() + "  " + r.size() + " bytes"
                + (r.resumedFrom() > 0 ? ", resumed from " + r.resumedFrom() : "")
                + ", " + r.cost().requests() + " requests"
                + (r.verified() ? ", sha256 verified" : r.sha256().map(s -> ", sha256 " + s).orElse(""));
    }

    /** One file done, in the command's JSON vocabulary (docs/cli.schema.json, kind {@code download}). */
    private static String json(Downloader.Done d) {
        FileDownload.Result r = d.result();
        return CommandJson.object(g -> {
            g.writeStringProperty("source", Location.parse(d.source()).display());
            g.writeStringProperty("kind", "download");
            g.writeStringProperty("status", Status.VALID.json());
            g.writeStringProperty("outcome", r == null || r.skipped() ? "present" : "downloaded");
            g.writeStringProperty("output", d.path().toString());
            if (r != null) {
                g.writeNumberProperty("size", r.size());
                g.writeNumberProperty("resumed_from", r.resumedFrom());
                g.writeNumberProperty("fetched", r.fetched());
                g.writeNumberProperty("requests", r.cost().requests());
                if (r.sha256().isPresent()) {
                    g.writeStringProperty("sha256", r.sha256().get());
                }
                g.writeBooleanProperty("verified", r.verified());
            }
        });
    }
}
