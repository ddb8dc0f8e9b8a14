package org.fts.loadtest.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.Histogram;

/**
 * One I/O thread of the driver: a selector over its share of the connections. It reads replies and records
 * them; in a closed loop it also sends each connection's next call as soon as the previous one ends. It stops
 * once the schedule is over ({@code stopAt}) and nothing is in flight, or at {@code drainUntil}.
 *
 * <p>What it records, for a run whose measured window is [{@code windowStart}, {@code windowEnd}): the latency
 * (reply time minus intended send time, in microseconds) of every call intended in the window, and the number
 * of calls that ended in the window (the throughput).
 */
final class IoLoop implements LoadConnection.Sink {
    /** The longest latency recorded, in microseconds (anything longer is clamped). */
    static final long MAX_LATENCY_US = 3_600_000_000L;

    private final List<LoadConnection> connections = new ArrayList<>();
    private final Selector selector;
    private final boolean closedLoop;
    /** Closed loop: calls each connection keeps in flight (client threads sharing it). */
    private final int callers;
    private final long windowStart;
    private final long windowEnd;
    private final long stopAt;
    private final long drainUntil;
    final Histogram latencyUs = new Histogram(MAX_LATENCY_US, 3);
    long endedInWindow;
    long errorsInWindow;
    long errors;
    long calls;
    private volatile boolean done;
    /** Whether the open loop's pacer has sent its last call (always, in a closed loop). */
    private volatile boolean pacerDone;

    IoLoop(boolean closedLoop, int callers, long windowStart, long windowEnd, long drainUntil) throws IOException {
        this.selector = Selector.open();
        this.closedLoop = closedLoop;
        this.callers = callers;
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
        this.stopAt = windowEnd;
        this.drainUntil = drainUntil;
        this.pacerDone = closedLoop;
    }

    /** The open loop's pacer sent its last call: once those are answered, this loop is done. */
    void pacerDone() {
        pacerDone = true;
        selector.wakeup();
    }

    void add(LoadConnection c) throws IOException {
        c.channel().register(selector, SelectionKey.OP_READ, c);
        connections.add(c);
    }

    List<LoadConnection> connections() {
        return connections;
    }

    /** Runs until the schedule is over and its connections are drained (or the drain deadline passes). */
    void run(long startAt) {
        try {
            if (closedLoop && connections.size() == 1 && callers == 1) {
                runAlone(startAt, connections.get(0));
                return;
            }
            if (closedLoop) {
                waitUntil(startAt);
                long now = System.nanoTime();
                for (LoadConnection c : connections) {
                    for (int k = 0; k < callers; k++) {
                        send(c, now);
                    }
                }
            }
            while (true) {
                long now = System.nanoTime();
                if (now >= stopAt && ((pacerDone && idle()) || now >= drainUntil)) {
                    return;
                }
                long waitMs = Math.max(1, ((now < stopAt ? stopAt : drainUntil) - now) / 1_000_000);
                selector.select(this::readable, Math.min(waitMs, 100));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            done = true;
        }
    }

    /**
     * A closed loop over one connection: a blocking write and a blocking read per call, two system calls where a
     * selector needs three (write, epoll_wait, read). If the drain deadline passes with a call still in flight,
     * the coordinating thread closes the connection, which ends the read.
     */
    private void runAlone(long startAt, LoadConnection c) throws IOException {
        c.channel().keyFor(selector).cancel();
        selector.selectNow();   // deregisters it: only then can it block
        c.blocking();
        waitUntil(startAt);
        send(c, System.nanoTime());
        while (c.inFlight() > 0 && !c.dead()) {
            int lost = c.read(this);
            if (lost > 0) {
                errors += lost;
                calls += lost;
                return;
            }
            long now = System.nanoTime();
            if (c.inFlight() == 0 && now < stopAt) {
                send(c, now);
            }
        }
    }

    private void readable(SelectionKey key) {
        LoadConnection c = (LoadConnection) key.attachment();
        int lost = c.read(this);
        long now = System.nanoTime();
        if (lost > 0) {
            errors += lost;
            calls += lost;
            key.cancel();
        } else if (closedLoop) {
            while (now < stopAt && c.inFlight() < callers && !c.dead()) {
                send(c, now);
            }
        }
    }

    private void send(LoadConnection c, long now) {
        if (!c.send(now)) {
            errors++;
            calls++;
        }
    }

    @Override
    public void ended(long intendedNanos, long nowNanos, boolean ok) {
        calls++;
        if (!ok) {
            errors++;
        }
        if (nowNanos >= windowStart && nowNanos < windowEnd && ok) {
            endedInWindow++;
        }
        if (intendedNanos >= windowStart && intendedNanos < windowEnd) {
            if (ok) {
                latencyUs.recordValue(Math.min(MAX_LATENCY_US, Math.max(1, (nowNanos - intendedNanos) / 1000)));
            } else {
                errorsInWindow++;
            }
        }
    }

    /** Calls still in flight on this loop's live connections. */
    long inFlight() {
        long n = 0;
        for (LoadConnection c : connections) {
            if (!c.dead()) {
                n += c.inFlight();
            }
        }
        return n;
    }

    private boolean idle() {
        return inFlight() == 0;
    }

    boolean done() {
        return done;
    }

    void close() {
        connections.forEach(LoadConnection::close);
        try {
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Parks the calling thread until {@code deadline} (System.nanoTime()). */
    static void waitUntil(long deadline) {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            java.util.concurrent.locks.LockSupport.parkNanos(left);
        }
    }
}
