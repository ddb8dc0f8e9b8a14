package org.fts.goa;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

import org.fts.gc.FailStop;
import org.fts.gc.Whiteboard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's load, measured every {@link #SAMPLE_MILLIS} and published on the group's {@link Whiteboard}, so
 * that every replica reads every other's locally (docs/placement.md). An entry's values, by index:
 * <ol start="0">
 *   <li>{@link #ENDPOINT}: this replica's position in the group reference's endpoint list (-1: not in it yet);</li>
 *   <li>{@link #SERVING}: 1 while it executes and answers requests, else 0;</li>
 *   <li>{@link #CONNECTIONS}: client connections placed here and still open (the placement's index);</li>
 *   <li>{@link #IN_FLIGHT}: requests received here and not yet answered;</li>
 *   <li>{@link #CPU}: this process's CPU use over the last sample, in thousandths of a core;</li>
 *   <li>{@link #ARRIVALS}: connections ever placed here (it only grows: a forwarder tells by it that its forwards
 *       arrived);</li>
 *   <li>{@link #COST}: what one of its connections costs this replica, in millionths of a core: its CPU over its
 *       connections, learned (a moving average) while it carries at least {@link #LEARN_FROM} that did not change
 *       for a second; 0 until then. The sequencer's ordering and every replica's execution of every request are in
 *       it, so a replica that does more than serve its connections has a higher cost.</li>
 * </ol>
 * Connections are counted from their first request ({@link #arrived}); one that is closed leaves the count at the
 * next sample. Thread-safe.
 */
final class LoadIndex implements AutoCloseable {
    static final int ENDPOINT = 0;
    static final int SERVING = 1;
    static final int CONNECTIONS = 2;
    static final int IN_FLIGHT = 3;
    static final int CPU = 4;
    static final int ARRIVALS = 5;
    static final int COST = 6;
    /** A replica learns what one connection costs it only while it carries at least this many. */
    static final int LEARN_FROM = 4;
    /** ... and only once its connections did not change for this long. */
    private static final long STABLE_NANOS = 1_000_000_000L;
    /** The weight of each new sample in the learned cost (about 2 s of samples). */
    private static final double LEARN_RATE = 0.05;
    static final long SAMPLE_MILLIS = 100;
    private static final Logger LOG = LoggerFactory.getLogger(LoadIndex.class);

    /** A connection seen: whether it was placed here (else forwarded away), and when it was last sent loads. */
    private static final class Seen {
        volatile boolean placed;
        volatile long loadsSentNanos;
    }

    /** Every connection seen, weakly. */
    private final Map<Object, Seen> seen = Collections.synchronizedMap(new WeakHashMap<>());
    private final Whiteboard board;
    private final IntSupplier endpoint;
    private final BooleanSupplier serving;
    private final IntSupplier inFlight;
    private final ScheduledExecutorService timer;
    private final com.sun.management.OperatingSystemMXBean os = cpuBean();
    private volatile int placed;
    private volatile long arrivals;
    private volatile long changedNanos = System.nanoTime();
    private double cost;
    private volatile long[] last = new long[] {-1, 0, 0, 0, 0, 0, 0};
    private long cpuNanos = -1;
    private long atNanos;

    LoadIndex(String replicaId, Whiteboard board, IntSupplier endpoint, BooleanSupplier serving, IntSupplier inFlight) {
        this.board = board;
        this.endpoint = endpoint;
        this.serving = serving;
        this.inFlight = inFlight;
        this.timer = Executors.newSingleThreadScheduledExecutor(FailStop.threads("fts-load-" + replicaId));
        timer.scheduleWithFixedDelay(this::sample, 0, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * The first request of {@code connection} (an opaque handle, compared by identity): true, and the connection
     * is remembered as undecided, the first time; false ever after.
     */
    boolean arrived(Object connection) {
        return seen.putIfAbsent(connection, new Seen()) == null;
    }

    /** {@code connection}, after {@link #arrived}, stays here: it counts until it closes. */
    void placedHere(Object connection) {
        synchronized (seen) {
            Seen s = seen.get(connection);
            if (s != null && !s.placed) {
                s.placed = true;
                placed++;
                arrivals++;
                changedNanos = System.nanoTime();
            }
        }
        long[] v = last.clone();   // the others learn of it now, not at the next sample
        v[CONNECTIONS] = placed;
        v[ARRIVALS] = arrivals;
        last = v;
        board.publish(v);
    }

    /**
     * Whether a reply on {@code connection} should carry the group's loads: true at most once per {@code
     * everyNanos} per connection (and never for a connection not seen).
     */
    boolean loadsDue(Object connection, long everyNanos) {
        Seen s = connection == null ? null : seen.get(connection);
        long now = System.nanoTime();
        if (s == null || (s.loadsSentNanos != 0 && now - s.loadsSentNanos < everyNanos)) {
            return false;
        }
        s.loadsSentNanos = now;
        return true;
    }

    /** Open connections placed here, as of now. */
    int connections() {
        return placed;
    }

    /** The latest values published (see the class comment). */
    long[] current() {
        return last.clone();
    }

    private void sample() {
        try {
            synchronized (seen) {
                int n = 0;
                for (Iterator<Map.Entry<Object, Seen>> it = seen.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<Object, Seen> e = it.next();
                    if (!Jacorb.isOpen(e.getKey())) {
                        it.remove();
                    } else if (e.getValue().placed) {
                        n++;
                    }
                }
                if (n != placed) {
                    changedNanos = System.nanoTime();
                }
                placed = n;
            }
            long cpu = cpu();
            boolean serves = serving.getAsBoolean();
            if (serves && placed >= LEARN_FROM && System.nanoTime() - changedNanos > STABLE_NANOS && cpu > 0) {
                double sample = cpu * 1000.0 / placed;
                cost = cost == 0 ? sample : cost + LEARN_RATE * (sample - cost);
            }
            long[] v = {endpoint.getAsInt(), serves ? 1 : 0, placed, inFlight.getAsInt(), cpu, arrivals,
                Math.round(cost)};
            last = v;
            board.publish(v);
        } catch (RuntimeException e) {
            LOG.debug("load sample failed: {}", e.toString());
        }
    }

    /** Thousandths of a core used since the previous sample (0 when the JVM does not say). */
    private long cpu() {
        if (os == null) {
            return 0;
        }
        long c = os.getProcessCpuTime();
        long now = System.nanoTime();
        long permille = cpuNanos < 0 || now == atNanos ? 0 : (c - cpuNanos) * 1000 / (now - atNanos);
        cpuNanos = c;
        atNanos = now;
        return Math.max(0, permille);
    }

    private static com.sun.management.OperatingSystemMXBean cpuBean() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean b
                ? b : null;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
