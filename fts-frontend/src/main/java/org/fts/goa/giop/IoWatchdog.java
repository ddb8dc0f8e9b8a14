package org.fts.goa.giop;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Closes connections stuck in the middle of a message ({@code fts.giop.io_timeout}): one whose client started a
 * GIOP message and does not send the rest (a slow-loris client holds the message's bytes of the intake budget,
 * and JacORB's buffer for it), and one to which a reply is being written that the client does not read (the
 * writing thread is one of JacORB's request threads; a few such clients would hold them all, and no client
 * would be served). Idle connections are left alone: only a message under way has a clock.
 *
 * <p>One daemon thread per replica's socket factory sweeps the live connections a few times per timeout. The
 * cost on the request path is two volatile writes per message read and per write. Thread-safe.
 */
final class IoWatchdog {
    /** A connection as the watchdog sees it. */
    interface Watched {
        /** When the oldest message under way on it started ({@link System#nanoTime()}), or 0 if none is. */
        long busySince();

        /** It has been busy too long: close it, saying why. */
        void expire(String why);
    }

    private final long timeoutNanos;
    private final boolean background;
    private final Set<Watched> live = ConcurrentHashMap.newKeySet();
    private ScheduledExecutorService sweeper;

    /** A watchdog that sweeps on a thread of its own, started with the first connection watched. */
    IoWatchdog(long timeoutNanos) {
        this(timeoutNanos, true);
    }

    /** @param background false: only {@link #sweep} calls sweep (tests) */
    IoWatchdog(long timeoutNanos, boolean background) {
        this.timeoutNanos = timeoutNanos;
        this.background = background;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    void watch(Watched w) {
        live.add(w);
        startSweeping();
    }

    void unwatch(Watched w) {
        live.remove(w);
    }

    private synchronized void startSweeping() {
        if (sweeper != null || !background) {
            return;
        }
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fts-giop-watchdog");
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(TimeUnit.SECONDS.toNanos(1), timeoutNanos / 4));
        sweeper.scheduleWithFixedDelay(() -> sweep(System.nanoTime()), period, period, TimeUnit.NANOSECONDS);
    }

    /** Expires every connection busy for longer than the timeout at {@code now}. */
    void sweep(long now) {
        for (Watched w : live) {
            long since = w.busySince();
            if (since != 0 && now - since > timeoutNanos) {
                live.remove(w);
                w.expire("a message under way for more than " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                        + " ms (" + GiopGuard.IO_TIMEOUT.name() + ")");
            }
        }
    }
}
