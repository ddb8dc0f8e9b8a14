package org.fts.loadtest.load;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

/**
 * One measurement: the connections driven for a warm-up and a measured window, closed or open loop, then
 * drained. In a closed loop every connection has one call in flight and sends the next when it ends. In an open
 * loop a pacer sends call {@code k} at {@code start + k / rate}, on the next connection with room, whatever
 * the replies do; a call's latency counts from that intended time, so a server that falls behind is charged
 * for the whole wait (no coordinated omission, as in wrk2).
 */
final class LoadRun {
    enum Mode {
        CLOSED, OPEN;

        static Mode of(String s) {
            return switch (s) {
                case "closed" -> CLOSED;
                case "open" -> OPEN;
                default -> throw new IllegalArgumentException("mode '" + s + "': closed or open");
            };
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * @param ratePerSecond open loop only: calls per second over all connections
     * @param maxInFlight   open loop: calls in flight per connection at most (pipelined GIOP requests); closed loop:
     *                      the calls each connection keeps in flight (its callers: client threads sharing it, as an
     *                      ORB's threads share one connection per server)
     */
    record Plan(Mode mode, double ratePerSecond, Duration warmup, Duration measure, Duration drain, int ioThreads,
                int maxInFlight) {
        Plan {
            if (mode == Mode.OPEN && !(ratePerSecond > 0)) {
                throw new IllegalArgumentException("an open loop needs a rate above 0");
            }
            if (ioThreads < 1 || maxInFlight < 1 || maxInFlight > LoadConnection.MAX_IN_FLIGHT) {
                throw new IllegalArgumentException("io threads >= 1, 1 <= max in flight <= "
                        + LoadConnection.MAX_IN_FLIGHT);
            }
        }
    }

    /** Called on the coordinating thread as the measured window opens and as it closes (CPU samples). */
    interface Window {
        /** No samples. */
        Window NONE = new Window() {
            @Override
            public void opened() {
            }

            @Override
            public void closed() {
            }
        };

        void opened();

        void closed();
    }

    /**
     * What one measurement saw. {@code latencyUs} holds the calls intended in the window that ended well;
     * {@code endedInWindow} counts the calls that ended well inside it (the throughput); {@code errors} counts
     * calls that ended badly or never (a dead connection, a reply other than NO_EXCEPTION) over the whole run,
     * and {@code unanswered} those still in flight when the drain gave up.
     */
    record Outcome(Histogram latencyUs, long endedInWindow, double windowSeconds, long errors, long unanswered,
                   int deadConnections, long lateSends) {
        double callsPerSecond() {
            return endedInWindow / windowSeconds;
        }
    }

    private LoadRun() {
    }

    static Outcome run(List<LoadConnection> connections, Plan plan, Window window) throws IOException,
            InterruptedException {
        long start = System.nanoTime() + 20_000_000L;
        long windowStart = start + plan.warmup().toNanos();
        long windowEnd = windowStart + plan.measure().toNanos();
        long drainUntil = windowEnd + plan.drain().toNanos();
        boolean closed = plan.mode() == Mode.CLOSED;
        List<IoLoop> loops = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < Math.min(plan.ioThreads(), connections.size()); i++) {
                loops.add(new IoLoop(closed, closed ? plan.maxInFlight() : 1, windowStart, windowEnd, drainUntil));
            }
            for (LoadConnection c : connections) {
                loops.get(c.index % loops.size()).add(c);
            }
            for (int i = 0; i < loops.size(); i++) {
                IoLoop loop = loops.get(i);
                Thread t = new Thread(() -> loop.run(start), "load-io-" + i);
                t.setDaemon(true);
                threads.add(t);
            }
            threads.forEach(Thread::start);
            Pacer pacer = null;
            Thread pacerThread = null;
            if (!closed) {
                pacer = new Pacer(connections, plan, start, windowEnd, loops);
                pacerThread = new Thread(pacer, "load-pacer");
                pacerThread.setDaemon(true);
                pacerThread.start();
            }
            IoLoop.waitUntil(windowStart);
            window.opened();
            IoLoop.waitUntil(windowEnd);
            window.closed();
            long joinBy = drainUntil + 5_000_000_000L;
            if (pacerThread != null) {
                pacerThread.join(Math.max(1, (joinBy - System.nanoTime()) / 1_000_000));
            }
            for (Thread t : threads) {
                t.join(Math.max(1, (joinBy - System.nanoTime()) / 1_000_000));
            }
            if (threads.stream().anyMatch(Thread::isAlive)) {
                // A blocking read waits for a reply that did not come by the drain deadline: closing its
                // connection ends it, and what was in flight counts as unanswered.
                long unanswered = loops.stream().mapToLong(IoLoop::inFlight).sum();
                loops.forEach(IoLoop::close);
                for (Thread t : threads) {
                    t.join(5_000);
                }
                if (threads.stream().anyMatch(Thread::isAlive)) {
                    throw new IllegalStateException("the driver's I/O threads did not stop");
                }
                return abandoned(connections, plan, loops, unanswered);
            }
            Histogram all = new Histogram(IoLoop.MAX_LATENCY_US, 3);
            long ended = 0;
            long errors = pacer == null ? 0 : pacer.failedSends;
            long unanswered = 0;
            for (IoLoop l : loops) {
                all.add(l.latencyUs);
                ended += l.endedInWindow;
                errors += l.errors;
                unanswered += l.inFlight();
            }
            int dead = (int) connections.stream().filter(LoadConnection::dead).count();
            return new Outcome(all, ended, plan.measure().toNanos() / 1e9, errors + unanswered, unanswered, dead,
                    pacer == null ? 0 : pacer.late);
        } finally {
            loops.forEach(IoLoop::close);
        }
    }

    /** The outcome of a run whose last calls were abandoned at the drain deadline. */
    private static Outcome abandoned(List<LoadConnection> connections, Plan plan, List<IoLoop> loops, long unanswered) {
        Histogram all = new Histogram(IoLoop.MAX_LATENCY_US, 3);
        long ended = 0;
        long errors = 0;
        for (IoLoop l : loops) {
            all.add(l.latencyUs);
            ended += l.endedInWindow;
            errors += l.errors;
        }
        int dead = (int) connections.stream().filter(LoadConnection::dead).count();
        return new Outcome(all, ended, plan.measure().toNanos() / 1e9, errors + unanswered, unanswered, dead, 0);
    }

    /** The open loop's sender: call k is due at {@code start + k / rate}, on the next connection with room. */
    private static final class Pacer implements Runnable {
        private final List<LoadConnection> connections;
        private final double periodNanos;
        private final long start;
        private final long stopAt;
        private final int maxInFlight;
        private final List<IoLoop> loops;
        long failedSends;
        /** Calls sent more than 1 ms after their intended time (the driver or the server fell behind). */
        long late;

        Pacer(List<LoadConnection> connections, Plan plan, long start, long stopAt, List<IoLoop> loops) {
            this.connections = connections;
            this.periodNanos = 1e9 / plan.ratePerSecond();
            this.start = start;
            this.stopAt = stopAt;
            this.maxInFlight = plan.maxInFlight();
            this.loops = loops;
        }

        @Override
        public void run() {
            try {
                int n = connections.size();
                for (long k = 0; ; ) {
                    long due = start + (long) (k * periodNanos);
                    if (due >= stopAt) {
                        return;
                    }
                    IoLoop.waitUntil(due);
                    LoadConnection c = null;
                    boolean anyAlive = false;
                    for (int j = 0; j < n && c == null; j++) {
                        LoadConnection x = connections.get((int) ((k + j) % n));
                        anyAlive |= !x.dead();
                        if (!x.dead() && x.inFlight() < maxInFlight) {
                            c = x;
                        }
                    }
                    if (c == null) {
                        if (!anyAlive) {
                            return;
                        }
                        LockSupport.parkNanos(20_000);   // every connection is full: call k waits, and that counts
                        continue;
                    }
                    if (System.nanoTime() - due > 1_000_000) {
                        late++;
                    }
                    if (!c.send(due)) {
                        failedSends++;
                    }
                    k++;
                }
            } finally {
                loops.forEach(IoLoop::pacerDone);
            }
        }
    }
}
