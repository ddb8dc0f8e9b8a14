package org.fts.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded waits on conditions for tests. Where a condition has no monitor to wait on (state owned by another
 * process or library), it is re-checked with a short park; the bound is what makes the test fail rather than
 * hang, with a message saying what did not happen.
 */
public final class Waits {
    private Waits() {
    }

    /** Waits until {@code condition} holds, at most {@code timeout}; fails with {@code what} otherwise. */
    public static void await(BooleanSupplier condition, Duration timeout, Supplier<String> what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long park = 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what.get());
            }
            java.util.concurrent.locks.LockSupport.parkNanos(park);
            park = Math.min(park * 2, 50_000_000L);
        }
    }
}
