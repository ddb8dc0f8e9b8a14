package org.fts.goa.intake;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 *   <li>{@link #CPU}: this process's CPU use, in thousandths of a core, averaged over about a second (as is
 *       {@link #FIXED});</li>
 *   <li>{@link #ARRIVALS}: connections ever placed here (it only grows: a forwarder tells by it that its forwards
 *       arrived);</li>
 *   <li>{@link #FIXED}: the part of {@link #CPU} its connections do not explain ({@link CpuSplit}): executing
 *       every request, and for the sequencer ordering them all;</li>
 *   <li>{@link #FINGERPRINT}: not a load: its {@link AgreedSettings}' fingerprint ({@link SettingsCheck});</li>
 *   <li>{@link #WIRE}: not a load: the wire versions its build speaks and the group's ({@code WireCheck},
 *       {@link org.fts.gc.WireVersion#pack}).</li>
 * </ol>
 * Connections are counted from their first request ({@link #arrived}); one that is closed leaves the count at the
 * next sample. Thread-safe.
 */
public final class LoadIndex implements AutoCloseable {
    static final int ENDPOINT = 0;
    public static final int SERVING = 1;
    static final int CONNECTIONS = 2;
    static final int IN_FLIGHT = 3;
    static final int CPU = 4;
    static final int ARRIVALS = 5;
    static final int FIXED = 6;
    public static final int FINGERPRINT = 7;
    public static final int WIRE = 8;
    static final long SAMPLE_MILLIS = 250;
    /** The weight of a new sample in the averages: about a second of samples. */
    private static final double SMOOTHING = 0.25;
    private static final Logger LOG = LoggerFactory.getLogger(LoadIndex.class);

    /** A connection seen: whether it was placed here (else forwarded away), and when it was last sent loads. */
    private static final class Seen {
        volatile boolean placed;
        volatile long loadsSentNanos;
    }

    /**
     * Every open connection seen, by identity (JacORB's connections keep Object's equals and hashCode): read without
     * a lock on every request; closed ones are removed at the next sample.
     */
    private final Map<Object, Seen> seen = new ConcurrentHashMap<>();
    private final Whiteboard board;
    private final IntSupplier endpoint;
    private final BooleanSupplier serving;
    private final IntSupplier inFlight;
    private final ScheduledExecutorService timer;
    private final CpuSplit split;
    private volatile int placed;
    private volatile long arrivals;
    private double cpuAverage;
    private double connectionCpu;
    private volatile long[] last;
    private final long fingerprint;
    private final java.util.function.LongSupplier wire;
    private volatile Runnable afterSample = () -> { };
    private final java.util.function.Predicate<Object> open;

    /**
     * @param split whether to split CPU by thread (placement by load needs it; without, {@link #FIXED} is all of it)
     * @param open  whether a connection, as the listener that read it names it, is still open
     */
    public LoadIndex(String replicaId, Whiteboard board, IntSupplier endpoint, BooleanSupplier serving,
                     IntSupplier inFlight, boolean split, long fingerprint, java.util.function.LongSupplier wire,
                     java.util.function.Predicate<Object> open) {
        this.open = open;
        this.fingerprint = fingerprint;
        this.wire = wire;
        this.last = new long[] {-1, 0, 0, 0, 0, 0, 0, fingerprint, wire.getAsLong()};
        this.split = new CpuSplit(split);
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
        return seen.get(connection) == null && seen.putIfAbsent(connection, new Seen()) == null;
    }

    /** {@code connection}, after {@link #arrived}, stays here: it counts until it closes. */
    void placedHere(Object connection) {
        synchronized (this) {
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

    /** Runs {@code r} on the sampling thread after each sample is published. */
    public void afterSample(Runnable r) {
        afterSample = r;
    }

    /** Open connections placed here, as of now. */
    public int connections() {
        return placed;
    }

    /** The latest values published (see the class comment). */
    long[] current() {
        return last.clone();
    }

    private void sample() {
        try {
            synchronized (this) {
                int n = 0;
                for (Iterator<Map.Entry<Object, Seen>> it = seen.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<Object, Seen> e = it.next();
                    if (!open.test(e.getKey())) {
                        it.remove();
                    } else if (e.getValue().placed) {
                        n++;
                    }
                }
                placed = n;
            }
            boolean serves = serving.getAsBoolean();
            CpuSplit.Sample cpu = split.sample();
            cpuAverage += SMOOTHING * (cpu.total() - cpuAverage);
            connectionCpu += SMOOTHING * (Math.min(cpu.connections(), cpu.total()) - connectionCpu);
            long[] v = {endpoint.getAsInt(), serves ? 1 : 0, placed, inFlight.getAsInt(), Math.round(cpuAverage),
                arrivals, Math.round(cpuAverage - connectionCpu), fingerprint, wire.getAsLong()};
            last = v;
            board.publish(v);
            afterSample.run();
        } catch (RuntimeException e) {
            LOG.debug("load sample failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
