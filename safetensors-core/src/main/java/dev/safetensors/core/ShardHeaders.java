package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import dev.safetensors.core.internal.header.PrefixCapture;
import dev.safetensors.core.internal.index.OrderedWindow;

/**
 * Reads the header of every shard of a checkpoint once, {@link dev.safetensors.core.ReadOptions#parallelism()} at a
 * time (through {@link OrderedWindow}), each through the options' registry, and judges each one on its own. A remote shard's source can be kept open after its header
 * is read, so the checkpoint reads its tensors through the same source (pinned to the version its header came from)
 * without asking for the header again; a local file is closed and reopened when needed, since that costs no request
 * and holds no descriptor meanwhile.
 */
final class ShardHeaders {
    /**
     * Most payload bytes kept, over all shards, from the first reads of the headers: a small tensor that came with
     * its header is then served without a request, while a checkpoint of thousands of shards cannot hold thousands
     * of prefixes.
     */
    static final long MAX_KEPT_PREFIX_BYTES = 64L * 1024 * 1024;

    /**
     * One shard read.
     *
     * @param verdict what was found
     * @param source  the open source, when kept (a remote shard that passed); otherwise {@code null}
     * @param prefix  payload bytes that came with a kept source's header, from the payload's first byte; may be empty
     * @param version the {@linkplain FileDownload#versionOf version} the header was read from, when it passed and the
     *                source reports one; otherwise {@code null}
     */
    public record Read(ShardVerdict verdict, RandomAccessSource source, ByteBuffer prefix, String version) {
    }

    private ShardHeaders() {
    }

    /**
     * @param shards     the shards' locations
     * @param options    the registry, limits and parallelism ({@link dev.safetensors.core.ReadOptions#parallelism()})
     * @param keepRemote whether to keep the sources of remote shards that passed open
     * @return one read per shard, in order; the caller closes the kept sources
     * @throws IOException only if the calling thread is interrupted (every source opened is closed first)
     */
    public static List<Read> read(List<Location> shards, SafetensorsClient options, boolean keepRemote) throws IOException {
        AtomicLong budget = new AtomicLong(MAX_KEPT_PREFIX_BYTES);
        // the read path's parallelism: what Checkpoint.open and the download's header check are bounded by
        int concurrency = Math.max(1, Math.min(shards.size(), options.readOptions().parallelism()));
        List<Read> all = new ArrayList<>(shards.size());
        try (OrderedWindow<Location, Read> window = new OrderedWindow<>(shards.iterator(),
                shard -> one(shard, options, keepRemote, budget), shard -> false, ShardHeaders::close, concurrency,
                "shard-header")) {
            while (window.hasNext()) {
                all.add(window.next());
            }
        } catch (IOException e) {
            all.forEach(ShardHeaders::close);
            throw e;
        }
        return all;
    }

    /**
     * Reads and judges one file's header; no source stays open.
     *
     * @param file    where the file is
     * @param options the registry and limits
     * @return its verdict
     */
    public static ShardVerdict check(Location file, SafetensorsClient options) {
        return one(file, options, false, new AtomicLong()).verdict();
    }

    private static void close(Read r) {
        if (r.source() != null) {
            try {
                r.source().close();
            } catch (IOException ignored) {
                // closing on the way out of an interruption: nothing more to report
            }
        }
    }

    private static Read one(Location shard, SafetensorsClient options, boolean keepRemote, AtomicLong budget) {
        RandomAccessSource source = null;
        try {
            source = options.registry().open(shard);
            PrefixCapture capture = new PrefixCapture(source, options.limits().prefetchBytes());
            SafetensorsHeader header = Safetensors.readHeader(capture, options.limits());
            ShardVerdict v = new ShardVerdict(shard, Optional.of(header), Optional.empty(), source.statistics());
            String version = FileDownload.versionOf(source).orElse(null);
            if (keepRemote && !(source instanceof FileSource)) {
                ByteBuffer prefix = capture.bytesFrom(header.payloadOffset());
                if (budget.addAndGet(-prefix.remaining()) < 0) {
                    prefix = ByteBuffer.allocate(0);
                }
                RandomAccessSource kept = source;
                source = null;
                return new Read(v, kept, prefix, version);
            }
            return new Read(v, null, null, version);
        } catch (IOException e) {
            return failed(shard, e, source);
        } catch (RuntimeException e) {
            return failed(shard, new StorageException(ErrorCode.IO_ERROR, shard.display(), e.toString(), e), source);
        } finally {
            if (source != null) {
                try {
                    source.close();
                } catch (IOException ignored) {
                    // the header was read, or its failure is what is reported
                }
            }
        }
    }

    private static Read failed(Location shard, IOException e, RandomAccessSource source) {
        SourceStatistics cost = source == null ? SourceStatistics.NONE : source.statistics();
        return new Read(new ShardVerdict(shard, Optional.empty(), Optional.of(e), cost), null, null, null);
    }
}
