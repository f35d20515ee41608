package dev.safetensors.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * Runs a {@link FileCheck} over every file and shard of a list of targets, {@code jobs} at a time, and hands the
 * results to the caller's thread in argument order as soon as each one and all before it are done: a checkpoint's
 * shards, then its aggregate. Shards of all checkpoints share one pool, so a checkpoint never waits on its own
 * shards while holding a thread.
 */
final class Batch {
    private final int jobs;
    private final Runnable afterEach;

    /**
     * @param jobs      how many files to examine at once
     * @param afterEach run after each file is done, on the thread that examined it (progress counting)
     */
    Batch(int jobs, Runnable afterEach) {
        this.jobs = jobs;
        this.afterEach = afterEach;
    }

    /**
     * @param targets the expanded sources
     * @param check   the work per file
     * @param sink    receives every result, in order, on the calling thread
     * @return the worst verdict over all results; {@link Status#VALID} for none
     */
    Status run(List<Target> targets, FileCheck check, Consumer<SourceResult> sink) {
        ExecutorService pool = Executors.newFixedThreadPool(jobs, daemonThreads());
        try {
            List<List<CompletableFuture<SourceResult>>> submitted = new ArrayList<>();
            for (Target t : targets) {
                List<CompletableFuture<SourceResult>> files = new ArrayList<>();
                List<Target.File> todo = t instanceof Target.Checkpoint c ? c.shards() : List.of((Target.File) t);
                for (Target.File f : todo) {
                    files.add(CompletableFuture.supplyAsync(() -> {
                        SourceResult r = check.check(f);
                        afterEach.run();
                        return r;
                    }, pool));
                }
                submitted.add(files);
            }
            Status worst = Status.VALID;
            for (int i = 0; i < targets.size(); i++) {
                List<SourceResult> results = new ArrayList<>();
                for (CompletableFuture<SourceResult> f : submitted.get(i)) {
                    SourceResult r = f.join();
                    results.add(r);
                    worst = worst.worse(r.status());
                    sink.accept(r);
                }
                if (targets.get(i) instanceof Target.Checkpoint c) {
                    SourceResult aggregate = CheckpointAggregate.of(c, results);
                    worst = worst.worse(aggregate.status());
                    sink.accept(aggregate);
                }
            }
            return worst;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * @param targets the expanded sources
     * @return how many files and shards they hold
     */
    static int fileCount(List<Target> targets) {
        return targets.stream().mapToInt(t -> t instanceof Target.Checkpoint c ? c.shards().size() : 1).sum();
    }

    private static ThreadFactory daemonThreads() {
        return r -> {
            Thread t = new Thread(r, "safetensors-check");
            t.setDaemon(true);
            return t;
        };
    }
}
