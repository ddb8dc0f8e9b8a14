package org.fts.goa.intake;

import java.util.function.LongSupplier;

/**
 * The group's own time (milliseconds), which no replica's wall clock moves.
 *
 * <p>A request is stamped where it is captured with this replica's <em>estimate</em> of the group's time: the
 * newest group time it executed plus the monotonic time elapsed since it executed it. Delivered in the total order,
 * the stamps make the group's time itself: the largest stamp executed so far ({@link #advance}), the same at every
 * replica at the same position. Decisions taken on it (how long a reply is kept, whether a request comes too late)
 * are therefore the same everywhere, and they no longer read any wall clock: a replica whose wall clock is 30 s
 * fast or slow stamps what the others stamp.
 *
 * <p>What is assumed: monotonic clocks tick at about the same rate (a stamp is at most one replica's elapsed time
 * ahead of what it executed). The group's time runs no faster than the fastest of them and stands still while the
 * group executes nothing; a whole group restarted from its log resumes where its log ended, so its time then lags
 * real time by the outage, which only keeps replies longer. A state transfer carries it ({@link ReplyCache}).
 */
public final class GroupClock {
    private final LongSupplier nanos;
    // Written by the execution path (under this object's lock), read by capture threads without it. The writer stores
    // executedAtNanos before executed, and a reader loads executed before executedAtNanos: a reader that sees a new
    // executed sees its monotonic time or a newer one, so an estimate may come out low (a request kept a little
    // shorter), never high (which would move the group's time ahead of itself).
    private volatile long executed;            // the group's time: the largest stamp executed
    private volatile long executedAtNanos;     // this replica's monotonic time when it learned {@code executed}

    GroupClock() {
        this(System::nanoTime);
    }

    GroupClock(LongSupplier nanos) {
        this.nanos = nanos;
        this.executedAtNanos = nanos.getAsLong();
    }

    /**
     * Capture path: the stamp for a request captured now, about the group's time this replica executed plus the
     * monotonic time since; no lock (a capture thread never waits for the execution path).
     */
    long estimate() {
        long e = executed;
        return e + Math.max(0, (nanos.getAsLong() - executedAtNanos) / 1_000_000);
    }

    /** Execution path: a delivered stamp; the group's time is the largest one. Returns the group's time. */
    synchronized long advance(long stamp) {
        if (stamp > executed) {
            executedAtNanos = nanos.getAsLong();
            executed = stamp;
        }
        return executed;
    }

    /** Execution path: the group's time, as of the last request executed. */
    long now() {
        return executed;
    }

    /** Execution path, at a cut: the group's time taken from a state installed here. */
    synchronized void set(long time) {
        executedAtNanos = nanos.getAsLong();
        executed = time;
    }
}
