package org.fts.loadtest.chaos;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A bounded wait on a condition owned by other processes (replicas answering, digests agreeing), which has no
 * monitor to wait on: it is re-checked with a short, growing park until it holds or the bound passes.
 */
final class Poll {
    private Poll() {
    }

    /** Waits until {@code condition} holds; returns the {@code System.nanoTime()} it held at, or -1 past the bound. */
    static long until(BooleanSupplier condition, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        long park = 10_000_000L;
        while (true) {
            if (condition.getAsBoolean()) {
                return System.nanoTime();
            }
            if (System.nanoTime() - deadline > 0 || Thread.currentThread().isInterrupted()) {
                return -1;
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, 200_000_000L);
        }
    }
}
