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
 *   <li>{@link #CPU}: this process's CPU use, in thousandths of a core, averaged over about a second;</li>
 *   <li>{@link #ARRIVALS}: connections ever placed here (it only grows: a forwarder tells by it that its forwards
 *       arrived);</li>
 *   <li>{@link #OFFSET}: how many connections this replica counts as besides its own, in thousandths: the
 *       work it does that its connections do not explain (the sequencer orders every request), learned from CPU
 *       ({@link #adjust}).</li>
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
    static final int OFFSET = 6;
    static final long SAMPLE_MILLIS = 100;
    /** Every this many samples (a second), the offset moves by at most one connection. */
    private static final int ADJUST_EVERY = 10;
    /** CPU within this share of the group's mean counts as balanced: the offset stays. */
    private static final double DEAD_BAND = 0.05;
    /** Below this mean CPU (thousandths of a core) the group is idle: nothing to learn. */
    private static final double BUSY_PERMILLE = 100;
    /** The offset learns only while the group carries at least this many connections per replica. */
    private static final int LOADED = 2;
    /** The offset may always reach this many connections, however few the group carries. */
    private static final double MIN_CAP = 4;
    private static final Logger LOG = LoggerFactory.getLogger(LoadIndex.class);

    /** A connection seen: whether it was placed here (else forwarded away), and when it was last sent loads. */
    private static final class Seen {
        volatile boolean placed;
        volatile long loadsSentNanos;
    }

    /** Every connection seen, weakly. */
    private final Map<Object, Seen> seen = Collections.synchronizedMap(new WeakHashMap<>());
    private final Whiteboard board;
    private final org.fts.gc.MemberId self;
    private final IntSupplier endpoint;
    private final BooleanSupplier serving;
    private final IntSupplier inFlight;
    private final ScheduledExecutorService timer;
    private final com.sun.management.OperatingSystemMXBean os = cpuBean();
    private volatile int placed;
    private volatile long arrivals;
    private double cpuAverage;
    private double offset;
    private int samples;
    private volatile long[] last = new long[] {-1, 0, 0, 0, 0, 0, 0};
    private long cpuNanos = -1;
    private long atNanos;

    LoadIndex(String replicaId, Whiteboard board, org.fts.gc.MemberId self, IntSupplier endpoint,
              BooleanSupplier serving, IntSupplier inFlight) {
        this.board = board;
        this.self = self;
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
                placed = n;
            }
            boolean serves = serving.getAsBoolean();
            cpuAverage += 0.1 * (cpu() - cpuAverage);   // about a second
            if (++samples % ADJUST_EVERY == 0) {
                adjust(serves);
            }
            long[] v = {endpoint.getAsInt(), serves ? 1 : 0, placed, inFlight.getAsInt(), Math.round(cpuAverage),
                arrivals, Math.round(offset * 1000)};
            last = v;
            board.publish(v);
        } catch (RuntimeException e) {
            LOG.debug("load sample failed: {}", e.toString());
        }
    }

    /**
     * The offset's control loop, once a second. When the group is busy (its mean CPU above {@link #BUSY_PERMILLE},
     * and {@link #LOADED} connections per replica) and this replica's CPU is more than {@link #DEAD_BAND} above
     * (below) the mean of the serving replicas, its offset grows (shrinks) by its excess in connections ({@code
     * excess share x its connections / 2}), at most one connection a second, within the group's mean connections
     * per replica. New connections then go where CPU is lowest; a replica that does not serve has none.
     */
    private void adjust(boolean serves) {
        if (!serves) {
            offset = 0;
            return;
        }
        double cpuSum = cpuAverage;
        long connections = placed;
        int replicas = 1;
        for (Map.Entry<org.fts.gc.MemberId, Whiteboard.Entry> e : board.entries().entrySet()) {
            Whiteboard.Entry v = e.getValue();
            if (!e.getKey().equals(self) && v.value(SERVING) == 1) {
                cpuSum += v.value(CPU);
                connections += v.value(CONNECTIONS);
                replicas++;
            }
        }
        double mean = cpuSum / replicas;
        if (replicas < 2 || mean < BUSY_PERMILLE || connections < LOADED * replicas) {
            return;   // nothing to balance: CPU then is the JIT compiler's, a state transfer's, a lone client's
        }
        double excess = (cpuAverage - mean) / mean;
        if (Math.abs(excess) <= DEAD_BAND) {
            return;
        }
        double cap = Math.max(MIN_CAP, (double) connections / replicas);
        double step = Math.max(-1, Math.min(1, excess * Math.max(placed, 1) / 2));
        offset = Math.max(-cap, Math.min(cap, offset + step));
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
