package org.fts.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The batcher with its real timer thread and concurrent casting threads. */
class BatcherTimerTest {
    /** {@code threads} threads cast as fast as they can for {@code millis} of load; every message must go out. */
    private static BatchStats drive(BatchPolicy policy, int threads, long millis) throws InterruptedException {
        Batcher[] self = new Batcher[1];
        ExecutorService network = Executors.newSingleThreadExecutor();
        // The sink "delivers back" at once, in order, so in-flight accounting sees real feedback.
        self[0] = new Batcher(policy, Clock.SYSTEM, b -> network.execute(() -> self[0].ownBatchDelivered()),
                r -> new Thread(r, "fts-batch-timer-t"));
        List<Thread> ts = new ArrayList<>();
        java.util.concurrent.atomic.AtomicLong cast = new java.util.concurrent.atomic.AtomicLong();
        long end = System.nanoTime() + millis * 1_000_000;
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                while (System.nanoTime() < end) {
                    self[0].cast(new byte[8]);
                    cast.incrementAndGet();
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join(30_000);
        }
        self[0].close();
        network.shutdown();
        network.awaitTermination(10, TimeUnit.SECONDS);
        assertEquals(cast.get(), self[0].stats().getMessagesSent(), "every message sent exactly once");
        return self[0].stats();
    }

    @Test
    void packStartsAdaptingWithinItsFirstPeriodsNotAfterAnIdleTimerWait() throws InterruptedException {
        // 300 ms of load, 10 ms periods: an idle timer that slept its full second would never measure.
        PackingPolicy p = (PackingPolicy) BatchPolicies.packing(64, Duration.ofMillis(2), Duration.ofMillis(10));
        BatchStats s = drive(p, 8, 300);
        assertTrue(s.getBatchLengthMax() > 1, "pack moved within 300 ms: " + s.dump());
    }

    @Test
    void abShortFormsBatchesWhenThreadsQueueOnTheBatch() throws InterruptedException {
        BatchStats s = drive(BatchPolicies.adaptive("short"), 8, 300);
        assertTrue(s.getBatchLengthMax() > 1, s.dump());
    }
}
