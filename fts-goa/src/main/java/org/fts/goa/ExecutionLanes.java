package org.fts.goa;

import org.fts.goa.intake.ObjectKey;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.fts.gc.FailStop;
import org.fts.gc.GroupChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 8's threads (the paper's background pool): requests execute in delivery order.
 *
 * <p>With one lane (the default) the lane is the group channel's delivery thread itself: a request delivered
 * there executes there, at once, with no hand-off to another thread (that hand-off cost a thread wake-up per
 * delivered batch; docs/performance.md), and work from any other thread is queued behind what was delivered
 * ({@link GroupChannel#onDeliveryThread}). Servant code then runs on FTS's own delivery thread, never on the
 * group layer's protocol threads, which only queue deliveries for it.
 *
 * <p>With more lanes (only when servants are declared independent) each object is pinned to one lane thread,
 * so requests to one object still execute in delivery order and different objects in parallel. {@link #atCut}
 * runs an action between two executions on every lane at once: the cut a state transfer snapshots or installs
 * at. An {@link Error} on a lane stops the replica ({@link FailStop}); a {@code RuntimeException} escaping a task
 * is logged and the lane goes on, on either kind of lane.
 */
final class ExecutionLanes {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutionLanes.class);

    private final ExecutorService[] lanes;
    private final GroupChannel channel;
    private final String name;

    /**
     * {@code count} lanes; with one, {@code channel}'s delivery thread is the lane, unless {@code ownThread} (servants
     * that wait for something delivered, as an ordered outcall's outcome: {@link Outcalls}).
     */
    ExecutionLanes(String name, int count, GroupChannel channel, boolean ownThread) {
        this.name = name;
        this.channel = count == 1 && !ownThread ? channel : null;
        this.lanes = new ExecutorService[this.channel != null ? 0 : count];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = Executors.newSingleThreadExecutor(FailStop.threads("fts-exec-" + name + "-" + i));
        }
    }

    /** Runs {@code task} after everything delivered before it for {@code key}'s lane. */
    void execute(ObjectKey key, Runnable task) {
        if (channel != null) {
            onDeliveryThread(task);
        } else {
            lanes[Math.floorMod(key.hashCode(), lanes.length)].execute(guarded(task));
        }
    }

    /** Runs {@code action} once everything queued before it executed, with every lane paused meanwhile. */
    void atCut(Runnable action) {
        if (channel != null) {
            onDeliveryThread(action);
            return;
        }
        CyclicBarrier cut = new CyclicBarrier(lanes.length, guarded(action));
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

    /** The delivery thread runs it now (everything delivered before it has executed); any other queues it there. */
    private void onDeliveryThread(Runnable task) {
        if (channel.isDeliveryThread()) {
            runGuarded(task);   // in place, inside a delivery callback: nothing allocated per execution
        } else {
            channel.onDeliveryThread(guarded(task));
        }
    }

    private Runnable guarded(Runnable task) {
        return () -> runGuarded(task);
    }

    private void runGuarded(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.error("{}: an execution task failed; the lane goes on", name, e);
        }
    }

    /** Stops taking work and waits (a bounded while) for what is queued; the delivery thread stops with its channel. */
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
