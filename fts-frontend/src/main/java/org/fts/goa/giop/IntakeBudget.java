package org.fts.goa.giop;

import java.io.InterruptedIOException;
import java.util.function.BooleanSupplier;

/**
 * The bytes a replica holds for requests it has read and not yet answered, across all its client connections
 * ({@code fts.intake.max_bytes}). A connection takes a message's bytes from the budget when its GIOP header has
 * been read, before JacORB allocates the body, and gives them back when the reply to it is written (or at once,
 * for what gets no reply). When the budget is spent, {@link #acquire} blocks the connection's reader: the
 * replica stops reading from it, TCP fills and the client's sends block. That is the backpressure.
 *
 * <p>Guarantees: the bytes taken never exceed the budget, except by one message taken alone (a message larger
 * than the whole budget is let in when nothing else is held, so it cannot wait forever); waiting readers are
 * woken by every release and by the close of their connection. Thread-safe.
 */
final class IntakeBudget implements IntakeBudgetMXBean {
    private final long max;
    private long used;
    private long peak;
    private long holds;

    IntakeBudget(long max) {
        this.max = max;
    }

    /**
     * Takes {@code n} bytes, waiting while they do not fit.
     *
     * @param closed checked while waiting: once it holds, returns false without taking anything
     * @param onHold run once, when this call has to wait
     * @return whether the bytes were taken (false: {@code closed} came to hold first)
     * @throws InterruptedIOException if the reader is interrupted while it waits (JacORB's shutdown)
     */
    synchronized boolean acquire(long n, BooleanSupplier closed, Runnable onHold) throws InterruptedIOException {
        boolean held = false;
        while (used > 0 && used + n > max) {
            if (closed.getAsBoolean()) {
                return false;
            }
            if (!held) {
                held = true;
                holds++;
                onHold.run();
            }
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted waiting for the intake budget (fts.intake.max_bytes)");
            }
        }
        used += n;
        peak = Math.max(peak, used);
        return true;
    }

    synchronized void release(long n) {
        if (n > 0) {
            used -= n;
            notifyAll();
        }
    }

    /** Wakes the waiting readers, so that one whose connection closed gives up. */
    synchronized void wake() {
        notifyAll();
    }

    long max() {
        return max;
    }

    @Override
    public long getMaxBytes() {
        return max;
    }

    @Override
    public long getUsedBytes() {
        return used();
    }

    @Override
    public long getPeakBytes() {
        return peak();
    }

    @Override
    public long getHolds() {
        return holds();
    }

    synchronized long used() {
        return used;
    }

    /** The most ever held at once. */
    synchronized long peak() {
        return peak;
    }

    /** How many times a reader was held back. */
    synchronized long holds() {
        return holds;
    }
}
