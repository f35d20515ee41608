package dev.safetensors.cli.checks;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.core.CheckHandler;
import dev.safetensors.core.CheckResults;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.CheckpointVerdict;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.ShardVerdict;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * Runs a {@link FileCheck} over every file and shard of a list of targets through the library's one check service
 * ({@link SafetensorsClient#check(Iterator, CheckHandler)}): {@code jobs} files at a time, results handed to the
 * caller's thread in argument order, a checkpoint's shards and then its own result, judged by the library's rules
 * (every shard passed, the index and the shards agree). A target that could not be expanded is reported in its place.
 */
public final class Batch {
    private final int jobs;
    private final Runnable afterEach;

    /**
     * @param jobs      how many files to examine at once
     * @param afterEach run after each file is done, on the thread that examined it (progress counting)
     */
    public Batch(int jobs, Runnable afterEach) {
        this.jobs = Math.min(jobs, SafetensorsClient.MAX_CONCURRENCY);
        this.afterEach = afterEach;
    }

    /**
     * @param targets the expanded sources
     * @param check   the work per file
     * @param sink    receives every result, in order, on the calling thread
     * @return the worst verdict over all results; {@link Status#VALID} for none
     */
    public Status run(List<Target> targets, FileCheck check, Consumer<SourceResult> sink) {
        return run(targets.iterator(), check, sink);
    }

    /**
     * Streams: targets are taken from the iterator only while fewer than {@code jobs} results are in flight or
     * waiting to be printed, so memory stays flat however many targets there are.
     *
     * @param targets the expanded sources, produced lazily
     * @param check   the work per file
     * @param sink    receives every result, in order, on the calling thread
     * @return the worst verdict over all results; {@link Status#VALID} for none
     */
    public Status run(Iterator<Target> targets, FileCheck check, Consumer<SourceResult> sink) {
        Run run = new Run(targets, check);
        SafetensorsClient client = SafetensorsClient.builder().concurrency(jobs).build();
        Status worst = Status.VALID;
        try (CheckResults<Item> results = client.check(run, run)) {
            while (true) {
                boolean more = results.hasNext();
                Item next = more ? results.next() : null;
                // targets that could not be expanded go where they were: before the first result of a later one
                while (!run.failed.isEmpty() && (next == null || run.failed.peek().seq() <= next.seq())) {
                    SourceResult r = run.failed.poll().result();
                    worst = worst.worse(r.status());
                    sink.accept(r);
                }
                if (next == null) {
                    return worst;
                }
                run.taken(next);
                worst = worst.worse(next.result().status());
                sink.accept(next.result());
            }
        } catch (IOException e) {
            SourceResult r = SourceResult.builder("", SourceResult.Kind.FILE).fail(Failure.from(e, "")).build();
            sink.accept(r);
            return worst.worse(r.status());
        }
    }

    /**
     * @param targets the expanded sources
     * @return how many files and shards they hold
     */
    static int fileCount(List<Target> targets) {
        return targets.stream().mapToInt(t -> t instanceof Target.Checkpoint c ? c.shards().size() : 1).sum();
    }

    /** A result and the position of its target among those given to the service. */
    private record Item(long seq, SourceResult result) {
    }

    /** A target given to the service, by the checkpoint files it was given as. */
    private record Given(long seq, Target target) {
    }

    /** A target that could not be expanded, to print before the results of the {@code seq}-th given target. */
    private record Failed(long seq, SourceResult result) {
    }

    /** The targets as the service takes them, and what it does with each file and checkpoint. */
    private final class Run implements Iterator<CheckpointFiles>, CheckHandler<Item> {
        private final Iterator<Target> targets;
        private final FileCheck check;
        /** Read by the reading threads, written by the consumer's: keyed by identity (no equals of its own). */
        private final Map<CheckpointFiles, Given> given = new ConcurrentHashMap<>();
        final ArrayDeque<Failed> failed = new ArrayDeque<>();
        private CheckpointFiles ahead;
        private long seq;
        private long worstSeq = -1;
        private SourceResult worst;

        Run(Iterator<Target> targets, FileCheck check) {
            this.targets = targets;
            this.check = check;
        }

        @Override
        public boolean hasNext() {
            while (ahead == null && targets.hasNext()) {
                Target t = targets.next();
                if (t instanceof Target.Checkpoint c && c.failure() != null) {
                    failed.add(new Failed(seq, SourceResult.builder(c.source(), SourceResult.Kind.CHECKPOINT)
                            .cost(c.cost()).attributes(c.attributes()).fail(c.failure()).build()));
                    continue;
                }
                CheckpointFiles files = t instanceof Target.Checkpoint c ? c.files()
                        : CheckpointFiles.ofFile(((Target.File) t).location());
                given.put(files, new Given(seq++, t));
                ahead = files;
            }
            return ahead != null;
        }

        @Override
        public CheckpointFiles next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            CheckpointFiles f = ahead;
            ahead = null;
            return f;
        }

        @Override
        public Item file(Location file, CheckpointFiles checkpoint) {
            Given g = given.get(checkpoint);
            Target.File f = g.target() instanceof Target.Checkpoint c
                    ? c.shards().get(checkpoint.shards().indexOf(file)) : (Target.File) g.target();
            SourceResult r = check.check(f);
            afterEach.run();
            return new Item(g.seq(), r);
        }

        @Override
        public ShardVerdict verdict(Item item) {
            SourceResult r = item.result();
            Location at = Location.parse(r.source());
            if (r.status() == Status.VALID && r.header().isPresent()) {
                return new ShardVerdict(at, r.header(), Optional.empty(), r.cost());
            }
            Failure f = r.failure().orElse(null);
            IOException why = f != null && f.cause() instanceof IOException e ? e : new StorageException(
                    ErrorCode.IO_ERROR, r.source(), f == null ? "no header" : f.message());
            return new ShardVerdict(at, Optional.empty(), Optional.of(why), r.cost());
        }

        /** Called on the consumer's thread for each result taken, before the next is made: the worst shard so far. */
        void taken(Item item) {
            SourceResult r = item.result();
            if (r.kind() != SourceResult.Kind.SHARD) {
                return;
            }
            if (worstSeq != item.seq()) {
                worstSeq = item.seq();
                worst = null;
            }
            if (r.status() != Status.VALID && (worst == null || worst.status().worse(r.status()) != worst.status())) {
                worst = r;
            }
        }

        @Override
        public Item checkpoint(CheckpointVerdict verdict) {
            Given g = given.remove(verdict.files().orElseThrow());
            if (!(g.target() instanceof Target.Checkpoint c)) {
                return null;
            }
            return new Item(g.seq(), CheckpointResult.of(c, verdict, worstSeq == g.seq() ? worst : null));
        }
    }
}
