package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single delivery thread of one channel. Protocol threads {@code offer} events without ever blocking;
 * the pump hands them to the {@link GroupListener} one at a time, in offer order. This is what keeps an
 * application that blocks in a callback from stalling the group layer: its events only queue up here.
 * Shared by every binding so that they all behave alike.
 */
public final class DeliveryPump {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryPump.class);
    /** Queue depths at which a warning is logged once (per rise), so a stuck listener is visible. */
    private static final int[] WARN_DEPTHS = {10_000, 100_000, 1_000_000};

    /** What the pump hands over; {@code due} is the System.nanoTime() before which it is not delivered. */
    private record Event(int kind, MemberId sender, byte[] payload, View view, long due) {
    }

    private static final int BROADCAST = 0;
    private static final int DIRECT = 1;
    private static final int VIEW = 2;
    private static final int STOP = 3;

    private final LinkedBlockingQueue<Event> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger depth = new AtomicInteger();
    private final GroupListener listener;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile long delayNanos;
    private final AtomicInteger warnedLevel = new AtomicInteger();

    public DeliveryPump(String name, GroupListener listener) {
        this.listener = listener;
        this.thread = new Thread(this::run, "fts-deliver-" + name);
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Queues a totally-ordered broadcast. Never blocks. */
    public void broadcast(MemberId sender, byte[] payload) {
        offer(BROADCAST, sender, payload, null);
    }

    /** Queues a point-to-point message. Never blocks. */
    public void direct(MemberId sender, byte[] payload) {
        offer(DIRECT, sender, payload, null);
    }

    /** Queues a view. Never blocks. */
    public void view(View view) {
        offer(VIEW, null, null, view);
    }

    /**
     * Delays every event offered from now on by {@code nanos} before it reaches the listener (fault
     * injection: a slow member). Order is kept: an event never overtakes one offered before it.
     */
    public void setDelayNanos(long nanos) {
        this.delayNanos = Math.max(0, nanos);
    }

    public int pending() {
        return depth.get();
    }

    /** Whether the caller is this pump's delivery thread. */
    public boolean isDeliveryThread() {
        return Thread.currentThread() == thread;
    }

    /**
     * Stops the pump: queued events are dropped, the listener gets no further callbacks once the current
     * one (if any) returns. Waits up to {@code waitMillis} (not at all if {@code <= 0}) for the thread to
     * end, unless called from it.
     */
    public void stop(long waitMillis) {
        stopped = true;
        queue.clear();
        queue.offer(new Event(STOP, null, null, null, 0));
        if (waitMillis > 0 && !isDeliveryThread() && thread.isAlive()) {
            try {
                thread.join(waitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void offer(int kind, MemberId sender, byte[] payload, View view) {
        if (stopped) {
            return;
        }
        long delay = delayNanos;
        int d = depth.incrementAndGet();   // before the offer: the pump never sees an event it has not counted
        queue.offer(new Event(kind, sender, payload, view, delay == 0 ? 0 : System.nanoTime() + delay));
        int level = warnedLevel.get();
        if (level < WARN_DEPTHS.length && d >= WARN_DEPTHS[level] && warnedLevel.compareAndSet(level, level + 1)) {
            LOG.warn("{}: {} deliveries queued behind a slow or blocked listener", thread.getName(), d);
        }
    }

    private void run() {
        List<Event> batch = new ArrayList<>(256);
        try {
            while (!stopped) {
                batch.add(queue.take());
                queue.drainTo(batch, 255);
                for (Event e : batch) {
                    if (stopped || e.kind() == STOP) {
                        return;
                    }
                    waitUntilDue(e.due());
                    depth.decrementAndGet();
                    dispatch(e);
                }
                batch.clear();
                if (depth.get() < WARN_DEPTHS[0] / 2) {
                    warnedLevel.set(0);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void waitUntilDue(long due) throws InterruptedException {
        if (due == 0) {
            return;
        }
        for (long left = due - System.nanoTime(); left > 0 && !stopped; left = due - System.nanoTime()) {
            java.util.concurrent.locks.LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private void dispatch(Event e) {
        try {
            switch (e.kind()) {
                case BROADCAST -> listener.deliver(e.sender(), e.payload());
                case DIRECT -> listener.receive(e.sender(), e.payload());
                case VIEW -> listener.viewAccepted(e.view());
                default -> { }
            }
        } catch (RuntimeException ex) {
            LOG.error("{}: listener threw; delivery continues", thread.getName(), ex);
        }
    }
}
