package org.fts.process;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded waits on conditions that have no monitor to wait on: state owned by other processes or by a library
 * (replicas answering, digests agreeing, a view installed). The condition is re-checked with a short park that
 * grows to at most 50 ms; the bound is what makes a caller fail rather than hang. The one wait-until helper of the
 * tests, the benchmarks and the chaos harness.
 */
public final class Waits {
    private static final long FIRST_PARK_NANOS = 1_000_000L;
    private static final long LONGEST_PARK_NANOS = 50_000_000L;

    private Waits() {
    }

    /**
     * Waits until {@code condition} holds, at most {@code bound} (or until the thread is interrupted).
     *
     * @return the {@code System.nanoTime()} at which it held, or -1 if it did not within the bound
     */
    public static long until(BooleanSupplier condition, Duration bound) {
        return until(condition, bound, Duration.ofNanos(LONGEST_PARK_NANOS));
    }

    /**
     * {@link #until(BooleanSupplier, Duration)} re-checking at least every {@code longestPark}: a benchmark that
     * times the wait keeps it short.
     */
    public static long until(BooleanSupplier condition, Duration bound, Duration longestPark) {
        long deadline = System.nanoTime() + bound.toNanos();
        long most = Math.max(1, longestPark.toNanos());
        long park = Math.min(FIRST_PARK_NANOS, most);
        while (true) {
            if (condition.getAsBoolean()) {
                return System.nanoTime();
            }
            if (System.nanoTime() - deadline > 0 || Thread.currentThread().isInterrupted()) {
                return -1;
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, most);
        }
    }

    /**
     * Waits until {@code condition} holds, at most {@code timeout}; a test's wait.
     *
     * @throws AssertionError saying what did not happen, past the bound
     */
    public static void await(BooleanSupplier condition, Duration timeout, Supplier<String> what) {
        if (until(condition, timeout) < 0) {
            throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what.get());
        }
    }
}
