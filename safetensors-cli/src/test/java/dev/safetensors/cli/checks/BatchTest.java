package dev.safetensors.cli.checks;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * {@link Batch}: the command's checks run on the library's check service (its reading threads, its bound), in
 * argument order, a target that could not be expanded reported in its place.
 */
class BatchTest {
    @Test
    void filesAreCheckedOnTheLibrarysReaderInOrderAndWithinTheBound() {
        int jobs = 3;
        AtomicInteger now = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        CyclicBarrier meet = new CyclicBarrier(jobs);
        java.util.Set<String> threads = ConcurrentHashMap.newKeySet();
        FileCheck check = f -> {
            max.accumulateAndGet(now.incrementAndGet(), Math::max);
            threads.add(Thread.currentThread().getName());
            if (started.incrementAndGet() <= jobs) {
                try {
                    // bounded: a reader running one file at a time never lets the others arrive
                    meet.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // the assertion on max reports it
                }
            }
            now.decrementAndGet();
            return SourceResult.builder(f.location().display(), SourceResult.Kind.FILE).build();
        };
        List<Target> targets = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            targets.add(Target.File.of(Location.parse("/nowhere/f" + i + ".safetensors")));
            if (i == 4) {
                targets.add(Target.Checkpoint.failed("/nowhere/broken.safetensors.index.json",
                        Failure.of(Status.ERROR, ErrorCode.NOT_FOUND, "no such file", Check.INDEX),
                        SourceStatistics.NONE));
            }
        }
        List<String> order = new ArrayList<>();
        Status worst = new Batch(jobs, () -> { }).run(targets, check, r -> order.add(r.source()));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.add("/nowhere/f" + i + ".safetensors");
            if (i == 4) {
                expected.add("/nowhere/broken.safetensors.index.json");
            }
        }
        assertEquals(expected, order, "argument order, the unexpanded checkpoint in its place");
        assertEquals(Status.ERROR, worst);
        assertEquals(jobs, max.get(), "three files at once, never more");
        assertTrue(threads.stream().allMatch(t -> t.startsWith("safetensors-check-")),
                "every file on the library's check reader: " + threads);
    }
}
