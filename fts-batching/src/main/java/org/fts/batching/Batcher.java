package org.fts.batching;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The doorway and the current batch, in front of a total-order broadcast. A thread {@link #enter}s the
 * doorway somewhere before its {@link #exit} (the paper's {@code cast()}), which adds its message to the
 * current batch; {@link #cast} is entry and exit at once (the short doorway). A {@link BatchPolicy} decides
 * when the batch is sent; sent batches go to the {@link Sink} encoded by {@link BatchCodec}.
 *
 * <p>Unlike the paper's time-based batching, whose timer thread starved behind the casting threads' lock,
 * the lock here covers only adding a message and swapping the batch. Swapped batches go to an outbox in swap
 * order, and whichever thread finds no one sending drains it, in order, outside the lock: batches leave in
 * FIFO order and no caster ever waits for another's send (a ticket with wake-ups measured an O(T^2) convoy:
 * 73k casts/s with 1 thread, 6.5k with 50). The timer is a dedicated thread woken only when its deadline
 * moves earlier. All times are nanoseconds from the {@link Clock}.
 */
public final class Batcher implements BatchState, AutoCloseable {
    /** Where encoded batches go, in order; typically {@code GroupChannel::abcast}. */
    @FunctionalInterface
    public interface Sink {
        void send(byte[] batch);
    }

    private static final Logger LOG = LoggerFactory.getLogger(Batcher.class);

    private final BatchPolicy policy;
    private final Clock clock;
    private final Sink sink;
    private final BatchStats stats;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition timerWake = lock.newCondition();
    /** A swapped batch on its way out: its messages and their cast times (for in-flight accounting). */
    private record Outgoing(List<byte[]> messages, long[] castTimes, long swappedAt) {
    }

    private final java.util.concurrent.ConcurrentLinkedQueue<Outgoing> outbox =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicBoolean sending = new java.util.concurrent.atomic.AtomicBoolean();
    private final Thread timer;

    // guarded by lock
    private List<byte[]> batch = new ArrayList<>();
    private long[] castTimes = new long[16];
    /** Threads inside the doorway; counted before they queue for the lock, so waiting threads count. */
    private final java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
    private int inFlight;
    private long first;
    private long last;
    private long timerDeadline = Long.MAX_VALUE;
    private final ArrayDeque<long[]> flying = new ArrayDeque<>();   // cast times of sent batches, in send order
    private volatile boolean closed;
    /** The group's wire version: the format of the batches sent from now on (docs/upgrades.md). */
    private volatile int wireVersion = 1;

    /**
     * @param timerThreads makes the timer's thread (the adaptor's stops the process if it fails); null for tests: no
     *                     timer thread, call {@link #tick()} after moving the clock
     */
    public Batcher(BatchPolicy policy, Clock clock, Sink sink, java.util.concurrent.ThreadFactory timerThreads) {
        this.policy = policy;
        this.clock = clock;
        this.sink = sink;
        this.stats = new BatchStats(policy.describe());
        if (timerThreads == null) {
            this.timer = null;
        } else {
            this.timer = timerThreads.newThread(this::timerLoop);
            this.timer.setPriority(Thread.MAX_PRIORITY);
            this.timer.start();
        }
    }

    public BatchStats stats() {
        return stats;
    }

    /** Enters the doorway (the long doorway: as early as request processing allows). */
    public void enter() {
        inside.incrementAndGet();
    }

    /** Leaves the doorway without casting (the request failed before its cast). */
    public void leave() {
        lock.lock();
        try {
            inside.decrementAndGet();
            if (!batch.isEmpty() && policy.afterCast(this, clock.nanoTime())) {
                swapLocked(clock.nanoTime());
            }
        } finally {
            lock.unlock();
        }
        drain();
    }

    /** Exits the doorway entered with {@link #enter()}, adding {@code message} to the current batch. */
    public void exit(byte[] message) {
        add(message);
    }

    /**
     * Sends the batches formed from now on in the format of wire version {@code version}: the group's, once the total
     * order moved it there (every member speaks it).
     */
    public void speak(int version) {
        if (version < 1 || version > 255) {
            throw new IllegalArgumentException("wire version " + version);
        }
        wireVersion = version;
    }

    /** The wire version of the batches it sends now. */
    public int speaking() {
        return wireVersion;
    }

    /**
     * The short doorway: enters on the call and exits once the message is in the batch, so threads queued
     * behind the batch lock are inside the doorway (the paper's short doorway spans {@code cast()} itself).
     */
    public void cast(byte[] message) {
        inside.incrementAndGet();
        add(message);
    }

    private void add(byte[] message) {
        lock.lock();
        long now = clock.nanoTime();
        try {
            inside.decrementAndGet();
            if (batch.isEmpty()) {
                first = now;
            }
            last = now;
            if (batch.size() == castTimes.length) {
                castTimes = Arrays.copyOf(castTimes, castTimes.length * 2);
            }
            castTimes[batch.size()] = now;
            batch.add(message);
            if (policy.afterCast(this, now)) {
                swapLocked(now);
            }
            wakeTimerIfEarlierLocked(now);
        } finally {
            lock.unlock();
        }
        drain();
    }

    /** Whatever just happened may have moved the policy's next deadline earlier than the timer's wait. */
    private void wakeTimerIfEarlierLocked(long now) {
        if (timer != null && policy.nextCheck(this, now) < timerDeadline) {
            timerWake.signal();
        }
    }

    /** One of this member's batches was delivered back (call in delivery order). */
    public void ownBatchDelivered() {
        long now = clock.nanoTime();
        lock.lock();
        try {
            inFlight = Math.max(0, inFlight - 1);
            long[] times = flying.pollFirst();
            if (times != null) {
                for (long t : times) {
                    stats.castLatency(now - t);
                }
            }
            if (policy.onDelivered(this, now)) {
                swapLocked(now);
            }
            wakeTimerIfEarlierLocked(now);
        } finally {
            lock.unlock();
        }
        drain();
    }

    /**
     * This member will not be given back the batches it cast so far: its history has a gap (the group
     * delivered them while it was cut off, or they were lost with a branch it alone followed). Releases every
     * in-flight slot, so that policies that wait for their batches to come back (natural batching) go on.
     */
    public void forgetInFlight() {
        long now = clock.nanoTime();
        lock.lock();
        try {
            inFlight = 0;
            flying.clear();
            if (policy.onDelivered(this, now)) {
                swapLocked(now);
            }
            wakeTimerIfEarlierLocked(now);
        } finally {
            lock.unlock();
        }
        drain();
    }

    /** A batch that never left will never be delivered back: release its in-flight slot. */
    private void unsent(Outgoing b) {
        lock.lock();
        try {
            inFlight = Math.max(0, inFlight - 1);
            flying.remove(b.castTimes());   // identity: this batch's own entry
        } finally {
            lock.unlock();
        }
    }

    /** Manual timer (tests): evaluates the policy's timer at the clock's current time. */
    public boolean tick() {
        boolean s = false;
        lock.lock();
        try {
            long now = clock.nanoTime();
            if (policy.nextCheck(this, now) <= now && policy.onTimer(this, now)) {
                s = swapLocked(now);
            }
        } finally {
            lock.unlock();
        }
        drain();
        return s;
    }

    /** Moves the current batch to the outbox (in swap order); true if there was one. */
    private boolean swapLocked(long now) {
        if (batch.isEmpty()) {
            return false;
        }
        List<byte[]> out = batch;
        long[] times = Arrays.copyOf(castTimes, out.size());
        batch = new ArrayList<>(Math.max(16, out.size()));
        inFlight++;
        flying.addLast(times);
        policy.onSent(this, out.size(), now);
        stats.sent(out.size());
        outbox.add(new Outgoing(out, times, now));
        return true;
    }

    /**
     * Sends what the outbox holds, in order, outside the state lock, if no other thread is already at it;
     * re-checks after letting go, so that a batch added meanwhile is never left behind.
     */
    private void drain() {
        while (!outbox.isEmpty() && sending.compareAndSet(false, true)) {
            try {
                for (Outgoing b = outbox.poll(); b != null; b = outbox.poll()) {
                    for (long t : b.castTimes()) {   // per-message stats, outside the batch lock
                        stats.batchingDelay(b.swappedAt() - t);
                    }
                    try {
                        sink.send(BatchCodec.encode(wireVersion, b.messages()));
                    } catch (RuntimeException e) {
                        LOG.warn("batch of {} could not be sent: {}", b.messages().size(), e.toString());
                        unsent(b);
                    }
                }
            } finally {
                sending.set(false);
            }
        }
    }

    private void timerLoop() {
        while (!closed) {
            lock.lock();
            try {
                long now = clock.nanoTime();
                long next = policy.nextCheck(this, now);
                if (next > now) {
                    timerDeadline = next;
                    timerWake.awaitNanos(next == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(1) : next - now);
                    timerDeadline = Long.MAX_VALUE;
                    continue;
                }
                if (policy.onTimer(this, now)) {
                    swapLocked(now);
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            drain();
        }
    }

    /** Sends what is pending and stops the timer. */
    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            swapLocked(clock.nanoTime());
            timerWake.signalAll();
        } finally {
            lock.unlock();
        }
        drain();
        if (timer != null) {
            timer.interrupt();
        }
    }

    // --- BatchState (read by policies under the lock) ---

    @Override
    public int pending() {
        return batch.size();
    }

    @Override
    public int inside() {
        return inside.get();
    }

    @Override
    public int inFlight() {
        return inFlight;
    }

    @Override
    public long firstCastNanos() {
        return first;
    }

    @Override
    public long lastCastNanos() {
        return last;
    }
}
