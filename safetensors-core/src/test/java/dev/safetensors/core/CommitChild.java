package dev.safetensors.core;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The program {@link CommitKillTest} runs in a child JVM: {@code SCENARIO DIR N} writes the scenario's new checkpoint
 * into DIR and, on reaching commit step N, prints {@code stopped N} and waits to be killed. A step never reached lets
 * the write finish ({@code done}). With a fourth argument {@code term}, it waits for its standard input to end instead
 * (the test sends SIGTERM first, then closes it), so the write goes on while the JVM shuts down.
 */
final class CommitChild {
    private CommitChild() {
    }

    public static void main(String[] args) throws Exception {
        CommitScenario scenario = CommitScenario.valueOf(args[0]);
        int stop = Integer.parseInt(args[2]);
        boolean term = args.length > 3 && args[3].equals("term");
        scenario.writer(true).onCommitStep(step -> {
            if (step == stop) {
                System.out.println("stopped " + step);
                System.out.flush();
                try {
                    if (term) {
                        while (System.in.read() >= 0) {
                            // until the parent closes it
                        }
                    } else {
                        new CountDownLatch(1).await();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }).writeTo(Path.of(args[1]));
        System.out.println("done");
        System.out.flush();
    }
}
