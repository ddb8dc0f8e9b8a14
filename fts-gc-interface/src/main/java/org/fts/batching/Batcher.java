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
 * the lock here covers only adding a message and swapping the batch; sending happens outside it, in strict
 * FIFO order of the swaps (a send ticket), and the timer is a dedicated thread woken only when a cast moves
 * its deadline earlier. All times are nanoseconds from the {@link Clock}.
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
    private final Object sendTurn = new Object();
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
    private long swapped;
    private final ArrayDeque<long[]> flying = new ArrayDeque<>();   // cast times of sent batches, in send order
    // guarded by sendTurn
    private long sentTickets;
    private volatile boolean closed;

    private record Swap(List<byte[]> messages, long ticket) {
    }

    /**
     * @param manualTimer true for tests: no timer thread, call {@link #tick()} after moving the clock
     */
    public Batcher(BatchPolicy policy, Clock clock, Sink sink, boolean manualTimer, String name) {
        this.policy = policy;
        this.clock = clock;
        this.sink = sink;
        this.stats = new BatchStats(policy.describe());
        if (manualTimer) {
            this.timer = null;
        } else {
            this.timer = new Thread(this::timerLoop, "fts-batch-timer-" + name);
            this.timer.setDaemon(true);
            this.timer.setPriority(Thread.MAX_PRIORITY);
            this.timer.start();
        }
    }

    public BatchStats stats() {
        return stats;
    }

    public BatchPolicy policy() {
        return policy;
    }

    /** Enters the doorway (the long doorway: as early as request processing allows). */
    public void enter() {
        inside.incrementAndGet();
    }

    /** Leaves the doorway without casting (the request failed before its cast). */
    public void leave() {
        Swap s = null;
        lock.lock();
        try {
            inside.decrementAndGet();
            if (!batch.isEmpty() && policy.afterCast(this, clock.nanoTime())) {
                s = swapLocked(clock.nanoTime());
            }
        } finally {
            lock.unlock();
        }
        send(s);
    }

    /** Exits the doorway entered with {@link #enter()}, adding {@code message} to the current batch. */
    public void exit(byte[] message) {
        add(message);
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
        Swap s = null;
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
                s = swapLocked(now);
            }
            wakeTimerIfEarlierLocked(now);
        } finally {
            lock.unlock();
        }
        send(s);
    }

    /** Whatever just happened may have moved the policy's next deadline earlier than the timer's wait. */
    private void wakeTimerIfEarlierLocked(long now) {
        if (timer != null && policy.nextCheck(this, now) < timerDeadline) {
            timerWake.signal();
        }
    }

    /** One of this member's batches was delivered back (call in delivery order). */
    public void ownBatchDelivered() {
        Swap s = null;
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
                s = swapLocked(now);
            }
            wakeTimerIfEarlierLocked(now);
        } finally {
            lock.unlock();
        }
        send(s);
    }

    /** Manual timer (tests): evaluates the policy's timer at the clock's current time. */
    public boolean tick() {
        Swap s = null;
        lock.lock();
        try {
            long now = clock.nanoTime();
            if (policy.nextCheck(this, now) <= now && policy.onTimer(this, now)) {
                s = swapLocked(now);
            }
        } finally {
            lock.unlock();
        }
        send(s);
        return s != null;
    }

    private Swap swapLocked(long now) {
        if (batch.isEmpty()) {
            return null;
        }
        List<byte[]> out = batch;
        long[] times = Arrays.copyOf(castTimes, out.size());
        for (long t : times) {
            stats.batchingDelay(now - t);
        }
        batch = new ArrayList<>(Math.max(16, out.size()));
        inFlight++;
        flying.addLast(times);
        policy.onSent(this, out.size(), now);
        stats.sent(out.size());
        return new Swap(out, swapped++);
    }

    /** Sends in ticket order, outside the state lock. */
    private void send(Swap s) {
        if (s == null) {
            return;
        }
        byte[] encoded = BatchCodec.encode(s.messages());
        synchronized (sendTurn) {
            while (sentTickets != s.ticket()) {
                try {
                    sendTurn.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        try {
            sink.send(encoded);
        } catch (RuntimeException e) {
            LOG.warn("batch of {} could not be sent: {}", s.messages().size(), e.toString());
        } finally {
            synchronized (sendTurn) {
                sentTickets++;
                sendTurn.notifyAll();
            }
        }
    }

    private void timerLoop() {
        while (!closed) {
            Swap s = null;
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
                    s = swapLocked(now);
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            send(s);
        }
    }

    /** Sends what is pending and stops the timer. */
    @Override
    public void close() {
        closed = true;
        Swap s;
        lock.lock();
        try {
            s = swapLocked(clock.nanoTime());
            timerWake.signalAll();
        } finally {
            lock.unlock();
        }
        send(s);
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
