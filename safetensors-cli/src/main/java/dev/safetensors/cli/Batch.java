package dev.safetensors.cli;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Map;
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
    /** Files in flight or waiting to be printed, per job: enough to keep every job busy while one is slow. */
    static final int WINDOW_PER_JOB = 4;

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
        return run(targets.iterator(), check, sink);
    }

    /**
     * Streams: targets are taken from the iterator only while fewer than {@value #WINDOW_PER_JOB} files per job are
     * in flight or waiting to be printed, so memory stays flat however many targets there are.
     *
     * @param targets the expanded sources, produced lazily
     * @param check   the work per file
     * @param sink    receives every result, in order, on the calling thread
     * @return the worst verdict over all results; {@link Status#VALID} for none
     */
    Status run(Iterator<Target> targets, FileCheck check, Consumer<SourceResult> sink) {
        ExecutorService pool = Executors.newFixedThreadPool(jobs, daemonThreads());
        try {
            ArrayDeque<Map.Entry<Target, List<CompletableFuture<SourceResult>>>> submitted = new ArrayDeque<>();
            int inFlight = 0;
            int window = jobs * WINDOW_PER_JOB;
            Status worst = Status.VALID;
            while (true) {
                while (inFlight < window && targets.hasNext()) {
                    Target t = targets.next();
                    List<CompletableFuture<SourceResult>> files = new ArrayList<>();
                    List<Target.File> toCheck = t instanceof Target.Checkpoint c ? c.shards() : List.of((Target.File) t);
                    for (Target.File f : toCheck) {
                        files.add(CompletableFuture.supplyAsync(() -> {
                            SourceResult r = check.check(f);
                            afterEach.run();
                            return r;
                        }, pool));
                    }
                    inFlight += Math.max(1, files.size());
                    submitted.add(Map.entry(t, files));
                }
                Map.Entry<Target, List<CompletableFuture<SourceResult>>> head = submitted.poll();
                if (head == null) {
                    return worst;
                }
                inFlight -= Math.max(1, head.getValue().size());
                List<SourceResult> results = new ArrayList<>();
                for (CompletableFuture<SourceResult> f : head.getValue()) {
                    SourceResult r = f.join();
                    results.add(r);
                    worst = worst.worse(r.status());
                    sink.accept(r);
                }
                if (head.getKey() instanceof Target.Checkpoint c) {
                    SourceResult aggregate = CheckpointAggregate.of(c, results);
                    worst = worst.worse(aggregate.status());
                    sink.accept(aggregate);
                }
            }
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
