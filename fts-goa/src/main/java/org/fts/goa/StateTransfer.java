package org.fts.goa;

import org.fts.goa.intake.Cast;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.fts.gc.FailStop;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * State transfer at a cut of the total order (docs/state-transfer.md). A replica that is not current, once
 * its objects are activated and an epoch is open, casts a marker ({@link Cast.StateMarker}) naming one
 * provider. Every replica delivers the marker at the same position; the provider, if current and primary,
 * snapshots at that position (a cut of its execution lanes: everything delivered before executed, nothing
 * after) and sends the snapshot in chunks, point to point, from a background thread, so its execution pauses
 * only while the snapshot is taken. The requester drops what it delivers before its marker (the snapshot
 * holds it), buffers what it delivers after, installs the snapshot with its lanes idle, replays the buffer,
 * and is current. The provider asked first is the one the group layer names (a member holding a synced
 * state), else a member the whiteboard shows serving, else the view's first; a provider that refuses, leaves the
 * view, or goes quiet for the attempt timeout is replaced by the
 * next member of the view, round-robin.
 *
 * <p>Threads: the delivery thread (markers, chunks, views, buffering), the application thread
 * ({@link #ready}), a timer (attempt timeouts), a sender (chunks). Guarded by this object's monitor.
 */
final class StateTransfer {
    private final java.util.concurrent.atomic.AtomicLong installs = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong provided = new java.util.concurrent.atomic.AtomicLong();

    /** States this replica installed from another. */
    long installs() {
        return installs.get();
    }

    /** States this replica gave to another. */
    long provided() {
        return provided.get();
    }

    /** What the transfer needs from its replica. */
    interface Host {
        MemberId member();

        /** Casts a marker into the total order. */
        void cast(Cast.StateMarker marker);

        void send(MemberId to, byte[] message);

        /** Runs {@code action} once everything delivered before executed, with every execution lane paused. */
        void atCut(Runnable action);

        /** Whether this replica may give its state: current and in a primary view; else why not. */
        String cannotProvide();

        /**
         * Whether {@code member} was last seen serving (the whiteboard's hint): such a member is current and
         * executes, so a marker naming it is answered soon. False when unknown.
         */
        default boolean seenServing(MemberId member) {
            return false;
        }

        /** Called at a cut. */
        byte[] snapshot() throws Snapshot.StateException;

        /**
         * Called on the delivery thread: installs {@code snapshot} with the lanes idle, then acts on the casts
         * {@code buffered} since the cut, in order. Only that: the caller of {@link #onMarker}/{@link #onDirect} learns of
         * the install from their result and changes the replica's standing.
         */
        void install(byte[] snapshot, List<Cast> buffered) throws Snapshot.StateException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(StateTransfer.class);
    private static final int CHUNK = 512 * 1024;

    private enum Phase { IDLE, REQUESTED, AWAITING }

    private final Host host;
    private final long attemptMillis;
    private final ScheduledExecutorService timer;
    private final ExecutorService sender;

    private boolean ready;
    private Phase phase = Phase.IDLE;
    private View view;
    /** Whether the view's epoch is open: a marker is cast only then (see {@link #maybeRequest}). */
    private boolean open;
    private boolean wanted;
    private long attempt;
    private String nonce;
    private MemberId provider;
    private final Set<MemberId> tried = new HashSet<>();
    private List<Cast> buffer = new ArrayList<>();
    private byte[][] chunks;
    private int received;
    private long lastProgress;
    private String lastRefusal = "no provider answered yet";
    private boolean retryScheduled;
    /** A member the group layer named as holding a synced state, asked first. */
    private MemberId hint;

    StateTransfer(Host host, long attemptMillis, String name) {
        this.host = host;
        this.attemptMillis = attemptMillis;
        this.timer = Executors.newSingleThreadScheduledExecutor(FailStop.threads("fts-state-timer-" + name));
        this.sender = Executors.newSingleThreadExecutor(FailStop.threads("fts-state-send-" + name));
    }

    synchronized String lastRefusal() {
        return lastRefusal;
    }

    /** The application activated its objects: the state can be installed into them. */
    synchronized void ready() {
        ready = true;
        maybeRequest();
    }

    /**
     * The replica's standing changed. {@code open}: its view's epoch is open (a marker cast now is ordered);
     * {@code want}: it is not current and should fetch the state; {@code gap}: it just missed part of the
     * history, so a transfer in progress (whose buffer lacks that part) starts over; {@code hint}, if not
     * null, holds a synced state.
     */
    synchronized void onStanding(View v, boolean open, boolean want, boolean gap, MemberId hint) {
        view = v;
        this.open = open;
        wanted = want;
        if (hint != null) {
            this.hint = hint;
            tried.remove(hint);
        }
        if (!want) {
            if (phase != Phase.IDLE) {
                // Current on its own (a replica whose group layer logs is current once its epoch opens: its log
                // rebuilds its state). A snapshot installed now would roll back what it executed since the marker.
                LOG.info("{}: state transfer from {} abandoned: this replica's state is current", host.member(),
                        provider);
                reset();
            }
            return;
        }
        if (phase != Phase.IDLE && (gap || !v.contains(provider))) {
            String why = gap ? "this replica missed part of the history meanwhile" : provider + " left the view";
            LOG.info("{}: state transfer from {} abandoned: {}", host.member(), provider, why);
            lastRefusal = why;
            reset();
        }
        if (open) {
            maybeRequest();
        }
    }

    private void reset() {
        phase = Phase.IDLE;
        nonce = null;
        buffer = new ArrayList<>();
        chunks = null;
    }

    /**
     * Asks a member for the state if this replica wants it, is ready, has no transfer going, and its view's epoch
     * is open. Not before the epoch opens: the epoch may come with a gap, which would abandon a transfer asked
     * for a moment earlier (a restarted replica's activation, on another thread, once raced its first epoch
     * like that, and its provider took two snapshots for one join). Whoever opens the epoch asks then.
     */
    private void maybeRequest() {
        if (!ready || !wanted || !open || phase != Phase.IDLE || view == null) {
            return;
        }
        MemberId next = null;
        if (hint != null && view.contains(hint) && !tried.contains(hint) && !hint.equals(host.member())) {
            next = hint;
        }
        // First a member seen serving, then any: a member that is itself behind (fetching a state, or replaying a
        // log far behind the marker) neither gives its state nor refuses until it delivers the marker (raft ctrl
        // seed 14 waited out a 15 s attempt on such a member while another could have answered at once).
        for (boolean servingOnly : new boolean[] {true, false}) {
            for (MemberId m : next != null ? List.<MemberId>of() : view.members()) {
                // never this replica's own dead predecessor (same replica id), which may linger in the view
                if (!m.replica().equals(host.member().replica()) && !tried.contains(m)
                        && (!servingOnly || host.seenServing(m))) {
                    next = m;
                    break;
                }
            }
        }
        if (next == null) {
            tried.clear();
            if (!retryScheduled && view.size() > 1) {
                retryScheduled = true;   // every member refused: ask again later, not in a loop
                timer.schedule(() -> {
                    synchronized (this) {
                        retryScheduled = false;
                        maybeRequest();
                    }
                }, attemptMillis, TimeUnit.MILLISECONDS);
            }
            return;
        }
        tried.add(next);
        provider = next;
        nonce = host.member() + "/" + (++attempt);
        phase = Phase.REQUESTED;
        lastProgress = System.nanoTime();
        LOG.info("{}: asking {} for the group's state ({})", host.member(), next, nonce);
        host.cast(new Cast.StateMarker(nonce, next, host.member()));
        String mine = nonce;
        timer.schedule(() -> checkProgress(mine), attemptMillis, TimeUnit.MILLISECONDS);
    }

    private void checkProgress(String which) {
        synchronized (this) {
            if (!which.equals(nonce)) {
                return;
            }
            long idle = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastProgress);
            if (idle < attemptMillis) {
                timer.schedule(() -> checkProgress(which), attemptMillis - idle, TimeUnit.MILLISECONDS);
                return;
            }
            LOG.warn("{}: no state from {} within {} ms; asking another replica", host.member(), provider, attemptMillis);
            lastRefusal = provider + " did not answer within " + attemptMillis + " ms";
            reset();
            maybeRequest();
        }
    }

    // ------------------------------------------------------------------ delivery thread

    /**
     * A marker delivered in the total order (delivery thread). Returns whether this replica installed the
     * group's state now (its chunks had all arrived before its marker).
     */
    boolean onMarker(Cast.StateMarker m) {
        boolean mine;
        synchronized (this) {
            mine = m.requester().equals(host.member()) && m.nonce().equals(nonce) && phase == Phase.REQUESTED;
            if (mine) {
                phase = Phase.AWAITING;   // the cut: from here on, deliveries are buffered
                buffer = new ArrayList<>();
                lastProgress = System.nanoTime();
            }
        }
        if (m.provider().equals(host.member())) {
            provide(m.requester(), m.nonce());
        }
        return mine && tryInstall(m.provider());   // the chunks may have overtaken the marker
    }

    /**
     * Whether {@code c} (an invocation or an announcement), delivered now, goes to the buffer: this replica
     * delivered its marker and awaits the snapshot, which holds nothing delivered after the marker.
     */
    synchronized boolean buffered(Cast c) {
        if (phase != Phase.AWAITING) {
            return false;
        }
        buffer.add(c);
        return true;
    }

    private void provide(MemberId requester, String theNonce) {
        String why = host.cannotProvide();
        if (why != null) {
            LOG.info("{}: cannot give its state to {}: {}", host.member(), requester, why);
            host.send(requester, Direct.refused(theNonce, why));
            return;
        }
        host.atCut(() -> {
            long t0 = System.nanoTime();
            byte[] snap;
            try {
                snap = host.snapshot();
            } catch (Snapshot.StateException | RuntimeException e) {
                LOG.error("{}: cannot snapshot its state for {}: {}", host.member(), requester, e.getMessage());
                sender.execute(() -> host.send(requester, Direct.refused(theNonce, String.valueOf(e.getMessage()))));
                return;
            }
            long took = System.nanoTime() - t0;
            sender.execute(() -> sendChunks(requester, theNonce, snap, took));
        });
    }

    private void sendChunks(MemberId to, String theNonce, byte[] snap, long snapshotNanos) {
        long t0 = System.nanoTime();
        int total = Math.max(1, (snap.length + CHUNK - 1) / CHUNK);
        try {
            for (int i = 0; i < total; i++) {
                int off = i * CHUNK;
                host.send(to, Direct.chunk(theNonce, i, total, snap, off, Math.min(CHUNK, snap.length - off)));
            }
            provided.incrementAndGet();
            LOG.info("{}: gave its state to {}: {} bytes, snapshot {} ms (execution paused), sent in {} ms",
                    host.member(), to, snap.length, snapshotNanos / 1_000_000, (System.nanoTime() - t0) / 1_000_000);
        } catch (RuntimeException e) {
            LOG.warn("{}: state transfer to {} failed: {}", host.member(), to, e.toString());
        }
    }

    /**
     * A point-to-point state message (chunk or refusal) from {@code from} (delivery thread). Returns whether
     * this replica installed the group's state now.
     */
    boolean onDirect(MemberId from, Direct message) {
        synchronized (this) {
            if (!message.nonce().equals(nonce)) {
                return false;   // an abandoned attempt's
            }
            if (message instanceof Direct.Refused r) {
                lastRefusal = from + ": " + r.reason();
                LOG.info("{}: {} refused its state: {}", host.member(), from, r.reason());
                reset();
                maybeRequest();
                return false;
            }
            Direct.Chunk m = (Direct.Chunk) message;
            if (phase == Phase.IDLE) {
                return false;
            }
            // Point-to-point messages are not ordered with broadcasts: chunks can arrive before this replica
            // delivers its own marker. They are kept; the install waits for the marker (the cut).
            if (chunks == null) {
                chunks = new byte[m.total()][];
                received = 0;
            }
            if (m.total() != chunks.length || chunks[m.index()] != null) {
                return false;
            }
            chunks[m.index()] = m.data();
            received++;
            lastProgress = System.nanoTime();
        }
        return tryInstall(from);
    }

    /** Installs once both the marker was delivered and every chunk arrived (delivery thread); true if it did. */
    private boolean tryInstall(MemberId from) {
        byte[] whole;
        List<Cast> replay;
        synchronized (this) {
            if (phase != Phase.AWAITING || chunks == null || received < chunks.length) {
                return false;
            }
            whole = concat(chunks);
            replay = buffer;
            reset();
            received = 0;
        }
        try {
            host.install(whole, replay);
        } catch (Snapshot.StateException e) {
            LOG.error("{}: cannot install the state from {}: {}", host.member(), from, e.getMessage());
            synchronized (this) {
                lastRefusal = from + "'s state could not be installed: " + e.getMessage();
                maybeRequest();
            }
            return false;
        }
        installs.incrementAndGet();
        LOG.info("{}: installed the group's state from {} ({} bytes, {} casts buffered meanwhile)",
                host.member(), from, whole.length, replay.size());
        synchronized (this) {
            tried.clear();
            wanted = false;
        }
        return true;
    }

    private static byte[] concat(byte[][] parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    void shutdown() {
        timer.shutdownNow();
        sender.shutdownNow();
    }

}
