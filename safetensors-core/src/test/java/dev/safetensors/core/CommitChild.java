package dev.safetensors.core;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The program {@link CommitKillTest} runs in a child JVM: {@code SCENARIO DIR N} writes the scenario's new checkpoint
 * into DIR and, on reaching commit step N, prints {@code stopped N} and waits to be killed. A step never reached lets
 * the write finish ({@code done}).
 */
final class CommitChild {
    private CommitChild() {
    }

    public static void main(String[] args) throws Exception {
        CommitScenario scenario = CommitScenario.valueOf(args[0]);
        int stop = Integer.parseInt(args[2]);
        scenario.writer(true).onCommitStep(step -> {
            if (step == stop) {
                System.out.println("stopped " + step);
                System.out.flush();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }).writeTo(Path.of(args[1]));
        System.out.println("done");
        System.out.flush();
    }
}
