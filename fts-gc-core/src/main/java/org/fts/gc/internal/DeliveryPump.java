package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.fts.gc.Epoch;
import org.fts.gc.FailStop;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.PumpEvent.Broadcast;
import org.fts.gc.internal.PumpEvent.CheckpointDue;
import org.fts.gc.internal.PumpEvent.Direct;
import org.fts.gc.internal.PumpEvent.FellBehind;
import org.fts.gc.internal.PumpEvent.NotPrimary;
import org.fts.gc.internal.PumpEvent.Opened;
import org.fts.gc.internal.PumpEvent.Restore;
import org.fts.gc.internal.PumpEvent.Skipped;
import org.fts.gc.internal.PumpEvent.Stop;
import org.fts.gc.internal.PumpEvent.Task;
import org.fts.gc.internal.PumpEvent.ViewChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single delivery thread of one channel. Protocol threads {@code offer} events without ever blocking;
 * the pump hands them to the {@link GroupListener} one at a time, in offer order. This is what keeps an
 * application that blocks in a callback from stalling the group layer: its events only queue up here.
 * Shared by every binding so that they all behave alike. An {@link Error} in a callback stops the process
 * ({@link FailStop}): the listener's state can no longer be trusted.
 *
 * <p>The broadcasts queued are bounded in bytes ({@link Backlog}): past the bound the pump drops broadcasts, tells
 * its binding at once (the member no longer holds the group's state) and the listener in turn
 * ({@link GroupListener#fellBehind}), then queues again. Nothing else is ever dropped.
 *
 * <p>A broadcast its binding calls deferrable ({@link #broadcast(MemberId, byte[], boolean)}: no reply of this
 * member's waits on it) may wait up to {@code fts.delivery.replay_delay} before it is handed over, so that one wake-up
 * of the delivery thread hands over several ({@link Wakeups}); every other event wakes the thread at once. Order is
 * kept whatever the kind.
 */
public final class DeliveryPump {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryPump.class);
    /** Queue depths at which a warning is logged once (per rise), so a stuck listener is visible. */
    private static final int[] WARN_DEPTHS = {10_000, 100_000, 1_000_000};
    /** Events the thread takes off the queue at a time; as many queued wake a lingering thread. */
    private static final int DRAIN = 256;

    private final ConcurrentLinkedQueue<PumpEvent> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger depth = new AtomicInteger();
    /** Events offered and not yet finished (the one being dispatched included). */
    private final AtomicInteger unfinished = new AtomicInteger();
    /** Held by the delivery thread while it dispatches, and by a task run in its stead ({@link #taskNowIfIdle}). */
    private final java.util.concurrent.locks.ReentrantLock exec = new java.util.concurrent.locks.ReentrantLock();
    private final GroupListener listener;
    private final Thread thread;
    private final Wakeups wakeups;
    private final AtomicLong deferrableOffered = new AtomicLong();
    private volatile boolean stopped;
    private volatile long delayNanos;
    private final AtomicInteger warnedLevel = new AtomicInteger();
    /** Epochs with a gap offered, and handed to the listener: a sync call counts only when they are equal. */
    private final AtomicLong gapsOffered = new AtomicLong();
    private final AtomicLong gapsHanded = new AtomicLong();

    private final Backlog backlog;
    /** Runs on the offering thread when a shed starts: the binding stops counting this member as synced. */
    private final Runnable shedding;

    /** A pump whose backlog is bounded by nothing but memory (tests, the simulator). */
    public DeliveryPump(String name, GroupListener listener) {
        this(name, listener, Long.MAX_VALUE, () -> { });
    }

    /** A pump that hands over every event at once ({@code fts.delivery.replay_delay} 0). */
    public DeliveryPump(String name, GroupListener listener, long maxBacklog, Runnable shedding) {
        this(name, listener, maxBacklog, shedding, 0);
    }

    /**
     * A pump that queues at most {@code maxBacklog} bytes of broadcasts ({@code fts.delivery.max_backlog}); when
     * it sheds, it runs {@code shedding} on the offering thread before it drops the first broadcast. A deferrable
     * broadcast waits up to {@code replayDelayNanos} ({@code fts.delivery.replay_delay}; 0: none waits).
     */
    public DeliveryPump(String name, GroupListener listener, long maxBacklog, Runnable shedding,
            long replayDelayNanos) {
        this.listener = listener;
        this.wakeups = new Wakeups(replayDelayNanos, DRAIN, depth);
        this.backlog = new Backlog(maxBacklog);
        this.shedding = shedding;
        this.thread = FailStop.threads("fts-deliver-" + name).newThread(this::run);
    }

    public void start() {
        thread.start();
    }

    /**
     * Queues a totally-ordered broadcast, or drops it when the listener is too far behind (see the class comment).
     * Never blocks.
     */
    public void broadcast(MemberId sender, byte[] payload) {
        broadcast(sender, payload, false);
    }

    /**
     * {@link #broadcast(MemberId, byte[])}; {@code deferrable}: nothing of this member's waits on it (another member's
     * clients sent it, and this member has none of its own on the way that would follow it), so it may be handed over
     * up to {@code fts.delivery.replay_delay} late, together with what follows it. Never blocks.
     */
    public void broadcast(MemberId sender, byte[] payload, boolean deferrable) {
        if (stopped) {
            return;
        }
        if (deferrable) {
            deferrableOffered.incrementAndGet();
        }
        admitted(sender, payload, backlog.admit(payload.length), deferrable);
    }

    /** Broadcasts offered as deferrable, whatever the delay (tests). */
    public long deferrableOffered() {
        return deferrableOffered.get();
    }

    /** Hands over what waits for a linger's end now (its listener is about to need it). Never blocks. */
    public void flush() {
        wakeups.flush(depth.get());
    }

    /**
     * Queues a broadcast a restarted member replays from its own log, whatever the backlog (the bytes are in its
     * memory already, and after a whole-group restart no other member may be able to give it a state). Never
     * blocks.
     */
    public void replay(MemberId sender, byte[] payload) {
        if (stopped) {
            return;
        }
        admitted(sender, payload, backlog.force(payload.length), false);
    }

    private void admitted(MemberId sender, byte[] payload, Backlog.Admission admission, boolean deferrable) {
        switch (admission) {
            case QUEUE -> offer(new Broadcast(sender, payload, due(), !wakeups.defers(deferrable)));
            case SHED_START -> {
                gapsOffered.incrementAndGet();   // an install before the listener hears of it is stale
                shedding.run();
                LOG.warn("{}: its listener is more than {} bytes of broadcasts behind the group: they are dropped "
                        + "until it is told, and it fetches the group's state", thread.getName(), backlog.max());
                offer(new FellBehind(due()));
            }
            case SHED -> { }
        }
    }

    /**
     * The binding left out {@code missed} broadcasts (at least one) at this point of the order, e.g. a Raft snapshot
     * installed in their place: the member stops counting as synced ({@code shedding} runs here) and the listener
     * hears {@code fellBehind(missed)} in turn, as after a shed. Never blocks.
     */
    public void skipped(long missed) {
        gapsOffered.incrementAndGet();
        shedding.run();
        offer(new Skipped(Math.max(1, missed), due()));
    }

    /** Bytes of broadcasts queued for the listener. */
    public long pendingBytes() {
        return backlog.bytes();
    }

    /** How many times the listener fell behind (sheds started), and broadcasts dropped in all. */
    public long[] sheds() {
        return new long[] {backlog.sheds(), backlog.dropped()};
    }

    /** Queues a point-to-point message. Never blocks. */
    public void direct(MemberId sender, byte[] payload) {
        offer(new Direct(sender, payload, due()));
    }

    /** Queues a view. Never blocks. */
    public void view(View view) {
        offer(new ViewChange(view, due()));
    }

    /** Queues the opening of an epoch. Never blocks. */
    public void epoch(Epoch epoch) {
        if (epoch.gap()) {
            gapsOffered.incrementAndGet();
        }
        offer(new Opened(epoch, due()));
    }

    /** Queues the news that a view is not primary. Never blocks. */
    public void notPrimary(View view, String reason) {
        offer(new NotPrimary(view, reason, due()));
    }

    /** Queues the state a restarted member goes on from ({@code GroupListener.restore}). Never blocks. */
    public void restore(long position, byte[] state) {
        offer(new Restore(position, state, due()));
    }

    /** Queues a checkpoint at the position of the last broadcast queued. Never blocks. */
    public void checkpoint(org.fts.gc.Checkpoint checkpoint) {
        offer(new CheckpointDue(checkpoint, due()));
    }

    /** Queues a task of the application's own, run on the delivery thread in turn. Never blocks. */
    public void task(Runnable task) {
        offer(new Task(task, due()));
    }

    /**
     * Runs {@code task} at once on the calling thread when the pump is idle (every event offered before has been
     * handed over and its callback has returned), with the delivery thread held off meanwhile, as if it ran there:
     * {@link #isDeliveryThread} is true during it. Otherwise (busy, not started, stopped, or called from the delivery
     * thread) queues it like {@link #task}. Saves the hand-off to the delivery thread and back for work that needs
     * only to follow what was offered before it (a read whose position was delivered: docs/reads.md).
     */
    public void taskNowIfIdle(Runnable task) {
        if (!stopped && thread.isAlive() && Thread.currentThread() != thread && unfinished.get() == 0
                && exec.tryLock()) {
            boolean ran = false;
            try {
                if (unfinished.get() == 0 && !stopped) {
                    ran = true;
                    task.run();
                }
            } finally {
                exec.unlock();
            }
            if (ran) {
                return;
            }
        }
        task(task);
    }

    /**
     * Whether every epoch with a gap offered so far has reached the listener: an application's "synced" refers
     * to the latest gap only then (a later gap, still queued, makes its freshly installed state stale again).
     */
    public boolean noGapPending() {
        return gapsOffered.get() == gapsHanded.get();
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

    /** Whether the delivery thread sleeps until its linger ends, deferrable broadcasts left queued (tests). */
    boolean lingering() {
        return wakeups.lingering();
    }

    /** Whether every event offered so far has been handed over and its callback has returned. */
    public boolean idle() {
        return unfinished.get() == 0;
    }

    /** Whether the caller is this pump's delivery thread, or runs a task in its stead ({@link #taskNowIfIdle}). */
    public boolean isDeliveryThread() {
        return Thread.currentThread() == thread || exec.isHeldByCurrentThread();
    }

    /**
     * Stops the pump: queued events are dropped, the listener gets no further callbacks once the current
     * one (if any) returns. Waits up to {@code waitMillis} (not at all if {@code <= 0}) for the thread to
     * end, unless called from it.
     */
    public void stop(long waitMillis) {
        stopped = true;
        queue.clear();   // backlog not released: nothing queues after a stop
        queue.offer(new Stop(0));
        wakeups.wakeNow();
        if (waitMillis > 0 && !isDeliveryThread() && thread.isAlive()) {
            try {
                thread.join(waitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Dispatches every queued event on the caller's thread, for a pump that was never started, as the protocol
     * simulator does (it runs a whole group on one thread). Delays ({@link #setDelayNanos}) are ignored.
     */
    public void drain() {
        if (thread.isAlive()) {
            throw new IllegalStateException(thread.getName() + ": drain() is for a pump that was never started");
        }
        for (PumpEvent e = queue.poll(); e != null && !stopped && !(e instanceof Stop); e = queue.poll()) {
            depth.decrementAndGet();
            wakeups.taken(e.urgent());
            try {
                dispatch(e);
            } finally {
                unfinished.decrementAndGet();
            }
        }
    }

    private long due() {
        long delay = delayNanos;
        return delay == 0 ? 0 : System.nanoTime() + delay;
    }

    private void offer(PumpEvent e) {
        if (stopped) {
            return;
        }
        unfinished.incrementAndGet();
        int d = depth.incrementAndGet();   // before the offer: the pump never sees an event it has not counted
        wakeups.beforeQueued(e.urgent());
        queue.offer(e);
        wakeups.queued(e.urgent(), d);
        int level = warnedLevel.get();
        if (level < WARN_DEPTHS.length && d >= WARN_DEPTHS[level] && warnedLevel.compareAndSet(level, level + 1)) {
            LOG.warn("{}: {} deliveries queued behind a slow or blocked listener", thread.getName(), d);
        }
    }

    private void run() {
        List<PumpEvent> batch = new ArrayList<>(DRAIN);
        boolean linger = false;   // the last round handed over a deferred broadcast: more may follow it
        try {
            while (!stopped) {
                wakeups.takingRound();
                for (PumpEvent e = queue.poll(); e != null; e = batch.size() < DRAIN ? queue.poll() : null) {
                    batch.add(e);
                }
                if (batch.isEmpty()) {
                    wakeups.await(queue, linger);
                    linger = false;
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    continue;
                }
                for (PumpEvent e : batch) {
                    if (stopped || e instanceof Stop) {
                        return;
                    }
                    linger |= !e.urgent();
                    waitUntilDue(e.due());
                    depth.decrementAndGet();
                    wakeups.taken(e.urgent());
                    exec.lock();
                    try {
                        dispatch(e);
                    } finally {
                        unfinished.decrementAndGet();
                        exec.unlock();
                    }
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

    private void restore(Restore r) {
        try {
            listener.restore(r.position(), r.state());
        } catch (RuntimeException ex) {   // going on from another state than the log's would diverge silently
            FailStop.fatal(new IllegalStateException(thread.getName() + ": could not restore the state checkpointed "
                    + "at " + r.position() + ": " + ex.getMessage(), ex));
        }
    }

    private void dispatch(PumpEvent e) {
        try {
            if (e instanceof Broadcast b) {
                backlog.release(b.payload().length);
                listener.deliver(b.sender(), b.payload());
            } else if (e instanceof FellBehind) {
                gapsHanded.incrementAndGet();
                long missed = Math.max(1, backlog.missed());
                // Before the callback: what it casts (its state marker) may be ordered, and queued here, before it
                // returns. Broadcasts queued from here on reach a listener that knows its state is stale.
                backlog.resume();
                listener.fellBehind(missed);
            } else if (e instanceof Skipped k) {
                gapsHanded.incrementAndGet();
                listener.fellBehind(k.missed());
            } else if (e instanceof Direct d) {
                listener.receive(d.sender(), d.payload());
            } else if (e instanceof ViewChange v) {
                listener.viewAccepted(v.view());
            } else if (e instanceof Opened o) {
                if (o.epoch().gap()) {
                    gapsHanded.incrementAndGet();
                }
                listener.epochOpened(o.epoch());
            } else if (e instanceof NotPrimary n) {
                listener.notPrimary(n.view(), n.reason());
            } else if (e instanceof Task t) {
                t.task().run();
            } else if (e instanceof CheckpointDue c) {
                listener.checkpointDue(c.checkpoint());
            } else if (e instanceof Restore r) {
                restore(r);
            }
        } catch (RuntimeException ex) {
            LOG.error("{}: listener threw; delivery continues", thread.getName(), ex);
        }
    }
}
