package org.fts.gc.internal;

import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * When a {@link DeliveryPump}'s thread wakes. An <em>urgent</em> event wakes it at once. A <em>deferrable</em> one (a
 * broadcast no reply of this member's waits on) does not wake a thread that lingers after
 * deferrable work: it is handed over at the end of the linger, at most {@code deferNanos} after it was queued, with
 * everything else that arrived meanwhile, in one wake-up. A thread that found nothing at the end of a linger sleeps
 * until the next event of any kind. So a deferrable event is late by at most {@code deferNanos}, never by more, and
 * an urgent event is never late; order is the queue's, whatever the kind.
 *
 * <p>The sleeper and the offerers meet through two atomics, in Dekker's order: an offerer queues (and counts an urgent
 * event first), then reads the state; the sleeper writes the state, then reads the queue (or the urgent count). Either
 * the offerer sees the sleeper and wakes it, or the sleeper sees the event and does not sleep.
 */
final class Wakeups {
    private static final int RUNNING = 0;
    /** Asleep until the next event of any kind. */
    private static final int IDLE = 1;
    /** Asleep until the linger ends or an urgent event (or too many events) arrives. */
    private static final int LINGERING = 2;

    private final AtomicInteger state = new AtomicInteger(RUNNING);
    /** Urgent events queued and not yet taken. */
    private final AtomicInteger urgentQueued = new AtomicInteger();
    private final long deferNanos;
    private final int wakeAtDepth;
    /** The pump's count of queued events. */
    private final AtomicInteger depth;
    private volatile Thread sleeper;
    /** A flush asked for since the thread last took events, or a stop: the next linger is skipped. */
    private volatile boolean flushAsked;
    private volatile boolean stopping;

    /**
     * @param deferNanos  how late a deferrable event may be handed over; 0: every event is urgent
     * @param wakeAtDepth queued events that wake a lingering thread whatever their kind (bounds a burst's size)
     * @param depth       the pump's count of queued events
     */
    Wakeups(long deferNanos, int wakeAtDepth, AtomicInteger depth) {
        this.deferNanos = Math.max(0, deferNanos);
        this.wakeAtDepth = wakeAtDepth;
        this.depth = depth;
    }

    /** Whether an event of this kind waits for a linger's end ({@code deferNanos > 0}). */
    boolean defers(boolean deferrable) {
        return deferrable && deferNanos > 0;
    }

    /** On the offering thread, before the event is queued. */
    void beforeQueued(boolean urgent) {
        if (urgent) {
            urgentQueued.incrementAndGet();
        }
    }

    /** On the offering thread, after the event is queued ({@code depth}: events now queued). */
    void queued(boolean urgent, int depth) {
        int s = state.get();
        boolean wake = s == IDLE || (s == LINGERING && (urgent || depth >= wakeAtDepth));
        if (wake && state.compareAndSet(s, RUNNING)) {
            Thread t = sleeper;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** On the delivery thread, before it takes a round of events off the queue. */
    void takingRound() {
        flushAsked = false;
    }

    /** On the delivery thread, for each event it takes off the queue. */
    void taken(boolean urgent) {
        if (urgent) {
            urgentQueued.decrementAndGet();
        }
    }

    /** Wakes a lingering thread if anything is queued ({@code depth} events). */
    void flush(int depth) {
        if (depth <= 0) {
            return;
        }
        flushAsked = true;   // before the state is read: a thread about to linger sees one or the other
        if (state.get() == LINGERING && state.compareAndSet(LINGERING, RUNNING)) {
            Thread t = sleeper;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Wakes the thread whatever it waits for (a stop). */
    void wakeNow() {
        stopping = true;
        state.set(RUNNING);
        Thread t = sleeper;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * On the delivery thread, when {@code queue} was found empty: sleeps until there is work. {@code linger}: the
     * last round handed over a deferrable event, so more may follow; the thread then sleeps for {@code deferNanos}
     * unless woken sooner (an urgent event, a full queue, a flush). Returns at once if the thread is interrupted
     * (its flag is left set).
     */
    void await(Queue<?> queue, boolean linger) {
        sleeper = Thread.currentThread();
        if (linger && deferNanos > 0) {
            state.set(LINGERING);
            // After the state is written: what an offerer or a flush did before it read the state is seen here.
            if (urgentQueued.get() == 0 && !flushAsked && !stopping && depth.get() < wakeAtDepth) {
                long deadline = System.nanoTime() + deferNanos;
                for (long left = deferNanos; left > 0 && state.get() == LINGERING && !Thread.currentThread()
                        .isInterrupted(); left = deadline - System.nanoTime()) {
                    LockSupport.parkNanos(this, left);
                }
            }
        } else {
            state.set(IDLE);
            while (queue.isEmpty() && state.get() == IDLE && !stopping && !Thread.currentThread().isInterrupted()) {
                LockSupport.park(this);
            }
        }
        state.set(RUNNING);
    }

    /** Whether the thread sleeps until its linger ends (tests). */
    boolean lingering() {
        return state.get() == LINGERING;
    }
}
