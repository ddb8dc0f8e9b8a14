package org.fts.gc.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of broadcasts a {@link DeliveryPump} holds for its listener, bounded (docs/goa.md, "A replica that
 * executes slowly"). A broadcast is admitted while the bytes queued stay within the bound, or when none are
 * queued (a batch larger than the bound still passes, alone). The first one refused starts a <em>shed</em>:
 * from then on every broadcast is dropped, until the listener has been told ({@link #resume}). Offers come from
 * the binding's ordering thread(s), one at a time per pump; releases from the delivery thread.
 */
final class Backlog {
    /** What {@link #admit} decided. */
    enum Admission { QUEUE, SHED_START, SHED }

    private final long max;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong sheds = new AtomicLong();
    private volatile boolean shedding;
    /** {@link #dropped} when the last shed ended (delivery thread). */
    private long resumedAt;

    Backlog(long max) {
        if (max <= 0) {
            throw new IllegalArgumentException("backlog bound " + max + " must be positive");
        }
        this.max = max;
    }

    Admission admit(int length) {
        if (shedding) {
            dropped.incrementAndGet();
            return Admission.SHED;
        }
        long queued = bytes.get();
        if (queued > 0 && queued + length > max) {
            shedding = true;
            sheds.incrementAndGet();
            dropped.incrementAndGet();
            return Admission.SHED_START;
        }
        bytes.addAndGet(length);
        return Admission.QUEUE;
    }

    /** Like {@link #admit}, but queues whatever the bytes queued, unless a shed is under way. */
    Admission force(int length) {
        if (shedding) {
            dropped.incrementAndGet();
            return Admission.SHED;
        }
        bytes.addAndGet(length);
        return Admission.QUEUE;
    }

    /** A queued broadcast of {@code length} bytes was handed over (or thrown away with the queue). */
    void release(int length) {
        bytes.addAndGet(-length);
    }

    /** Broadcasts dropped in the current shed so far (at least one during a shed). */
    long missed() {
        return dropped.get() - resumedAt;
    }

    /** The listener has been told of the shed: broadcasts queue again. */
    void resume() {
        resumedAt = dropped.get();
        shedding = false;
    }

    /** Broadcasts dropped since the start, over every shed. */
    long dropped() {
        return dropped.get();
    }

    long sheds() {
        return sheds.get();
    }

    long bytes() {
        return bytes.get();
    }

    long max() {
        return max;
    }
}
