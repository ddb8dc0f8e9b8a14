package org.fts.goa;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.fts.gc.FailStop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 8's threads (the paper's background pool): requests execute in delivery order, never on the group's
 * delivery thread. With one lane (the default) every request executes in delivery order. With more (only when
 * servants are declared independent) each object is pinned to one lane, so requests to one object still
 * execute in delivery order. {@link #atCut} runs an action between two executions on every lane at once: the
 * cut a state transfer snapshots or installs at. An {@link Error} on a lane stops the replica ({@link FailStop}).
 */
final class ExecutionLanes {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutionLanes.class);

    private final ExecutorService[] lanes;
    private final String name;

    ExecutionLanes(String name, int count) {
        this.name = name;
        this.lanes = new ExecutorService[count];
        for (int i = 0; i < count; i++) {
            lanes[i] = Executors.newSingleThreadExecutor(FailStop.threads("fts-exec-" + name + "-" + i));
        }
    }

    /** Runs {@code task} after everything delivered before it for {@code key}'s lane. */
    void execute(ObjectKey key, Runnable task) {
        lanes[Math.floorMod(key.hashCode(), lanes.length)].execute(task);
    }

    /** Runs {@code action} once everything queued before it executed, with every lane paused meanwhile. */
    void atCut(Runnable action) {
        if (lanes.length == 1) {
            lanes[0].execute(action);
            return;
        }
        CyclicBarrier cut = new CyclicBarrier(lanes.length, action);
        for (ExecutorService lane : lanes) {
            lane.execute(() -> {
                try {
                    cut.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (BrokenBarrierException e) {
                    LOG.error("{}: execution cut broken", name, e);
                }
            });
        }
    }

    /** Stops taking work and waits (a bounded while) for what is queued. */
    void shutdown() {
        for (ExecutorService lane : lanes) {
            lane.shutdown();
        }
        for (ExecutorService lane : lanes) {
            try {
                lane.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
