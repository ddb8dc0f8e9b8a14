package org.fts.gc.raft;

import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fts.gc.FailStop;
import org.fts.gc.GroupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's own broadcasts on their way into the Raft log: numbered in {@code abcast} order, appended through
 * jgroups-raft ({@code REDIRECT} takes a follower's to the leader) with at most {@link #WINDOW} unapplied at a
 * time, and kept until this member applied them. An append that fails (no leader, a leader change, a lost reply)
 * or no progress for {@code resendMillis} makes it append again from its first entry not applied: the
 * {@link Ledger} skips the duplicates and anything committed out of order, so each broadcast is delivered once,
 * in order. At most {@link #MAX_PENDING} broadcasts wait; {@code abcast} blocks past that (flow control).
 */
final class Submitter {
    private static final Logger LOG = LoggerFactory.getLogger(Submitter.class);
    static final int WINDOW = 256;
    static final int MAX_PENDING = 20_000;

    /** Appends one entry to the log; the future completes once it is committed (or fails). */
    interface Log {
        CompletableFuture<byte[]> append(byte[] entry) throws Exception;
    }

    private final String origin;
    private final Log log;
    private final long resendNanos;
    private final TreeMap<Long, byte[]> pending = new TreeMap<>();
    private final Thread thread;
    private long next = 1;
    private long applied;
    private long sentUpTo;
    private long lastProgress = System.nanoTime();
    private boolean closed;
    private long lastWarned = System.nanoTime() - 2_000_000_000L;

    Submitter(String origin, Log log, long resendMillis) {
        this.origin = origin;
        this.log = log;
        this.resendNanos = TimeUnit.MILLISECONDS.toNanos(resendMillis);
        this.thread = FailStop.threads("fts-raft-submit-" + origin).newThread(this::run);
    }

    void start() {
        thread.start();
    }

    /** Queues {@code payload}; blocks while {@link #MAX_PENDING} wait. */
    void submit(byte[] payload) {
        synchronized (this) {
            while (pending.size() >= MAX_PENDING && !closed) {
                try {
                    wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new GroupException(origin + ": interrupted while the log's queue was full");
                }
            }
            if (closed) {
                throw new GroupException(origin + ": channel closed");
            }
            long oseq = next++;
            pending.put(oseq, Ledger.encode(origin, oseq, payload));
            notifyAll();
        }
    }

    /** This member applied its own entries up to {@code oseq}. */
    synchronized void applied(long oseq) {
        if (oseq > applied) {
            applied = oseq;
            pending.headMap(oseq, true).clear();
            sentUpTo = Math.max(sentUpTo, applied);
            lastProgress = System.nanoTime();
            notifyAll();
        }
    }

    void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        thread.interrupt();
    }

    private synchronized void again(String why) {
        if (sentUpTo > applied) {
            long now = System.nanoTime();
            if (now - lastWarned > 1_000_000_000L) {   // at most once a second
                lastWarned = now;
                LOG.warn("{}: an append failed ({}); appending again from {}", origin, why, applied + 1);
            }
            sentUpTo = applied;
        }
        notifyAll();
    }

    private void run() {
        try {
            while (true) {
                long oseq;
                byte[] entry;
                synchronized (this) {
                    while (!closed && (sentUpTo >= next - 1 || sentUpTo - applied >= WINDOW)) {
                        if (sentUpTo > applied && System.nanoTime() - lastProgress > resendNanos) {
                            LOG.debug("{}: nothing applied for {} ms: appending again from {}", origin,
                                    TimeUnit.NANOSECONDS.toMillis(resendNanos), applied + 1);
                            lastProgress = System.nanoTime();
                            sentUpTo = applied;   // no progress: the appends in flight may be lost
                            continue;
                        }
                        wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(resendNanos) / 4));
                    }
                    if (closed) {
                        return;
                    }
                    oseq = sentUpTo + 1;
                    entry = pending.get(oseq);
                    sentUpTo = oseq;
                }
                try {
                    log.append(entry).whenComplete((r, ex) -> {
                        if (ex != null) {
                            again(ex.toString());
                        }
                    });
                } catch (Exception e) {   // no leader yet, or it just changed: wait a little, then again
                    again(e.toString());
                    Thread.sleep(20);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
