package org.fts.goa;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.fts.batching.BatchCodec;
import org.fts.batching.BatchPolicy;
import org.fts.batching.Batcher;
import org.fts.batching.Clock;
import org.fts.gc.Epoch;
import org.fts.gc.FailStop;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.omg.PortableServer.Servant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stages 5 to 10 on one replica: casts captured requests into the total order, and executes delivered ones,
 * in delivery order, on the background pool, never on the group's delivery thread; caches each reply and
 * hands it to the waiting foreground thread when this replica is the request's origin.
 *
 * <p>Order: with one background thread (the default) every request executes in delivery order. With more
 * (only when servants are declared independent) each object is pinned to one lane, so requests to one object
 * still execute in delivery order.
 *
 * <p>Membership (docs/primary-view.md, docs/state-transfer.md): the group layer delivers only in primary
 * epochs, and, under uniform delivery (the default), only what a majority of replicas hold, so whatever a
 * replica executes and answers is in the group's one history. A replica executes deliveries only while its
 * state is current ({@link Standing}); after a gap it drops them, or buffers them while a
 * {@link StateTransfer} brings the state.
 *
 * <p>Wire: each cast is one batch ({@link BatchCodec}).
 */
final class ReplicaEngine implements GroupListener, StateTransfer.Host {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaEngine.class);
    /** Operation name of the control request announcing a replica's endpoint (empty object id). */
    static final String ANNOUNCE = "_fts_announce";

    private final String self;
    private final MemberId member;
    private final Replay replay;
    private final ReplyCache cache;
    private final Map<ObjectKey, Servant> objects;
    private final ExecutorService[] lanes;
    private final Standing standing;
    private final StateTransfer transfer;
    /** Completes once activate() may return: the state is current, or the group is not primary yet. */
    private final CompletableFuture<Void> started = new CompletableFuture<>();

    /** A request this replica cast and waits for, and how many foreground threads wait (retries join). */
    private static final class Pending {
        final CompletableFuture<Reply> reply = new CompletableFuture<>();
        int waiters = 1;   // guarded by the map's compute
    }

    private final Map<RequestId, Pending> pending = new ConcurrentHashMap<>();
    private volatile Batcher batcher;
    private volatile GroupChannel channel;
    private volatile Membership membership;
    /** Why this replica does not serve right now, or null when it does. */
    private volatile String notServing = "has not joined its group yet";
    private final Object servingChanged = new Object();

    ReplicaEngine(String self, MemberId member, Replay replay, ReplyCache cache, Map<ObjectKey, Servant> objects,
                  int lanes, int groupSize, long stateAttemptMillis) {
        this.self = self;
        this.member = member;
        this.replay = replay;
        this.cache = cache;
        this.objects = objects;
        this.standing = new Standing(groupSize);
        this.transfer = new StateTransfer(this, stateAttemptMillis, self);
        this.lanes = new ExecutorService[lanes];
        for (int i = 0; i < lanes; i++) {
            // An Error while executing (OutOfMemoryError in a servant, ...) stops the replica: its state may
            // differ from the others' from then on (FailStop).
            this.lanes[i] = Executors.newSingleThreadExecutor(FailStop.threads("fts-exec-" + self + "-" + i));
        }
    }

    /** Connects the engine to its channel, through a batcher of {@code policy} (stages 5-6). */
    void attach(GroupChannel ch, BatchPolicy policy) {
        this.channel = ch;
        this.batcher = new Batcher(policy, Clock.SYSTEM, this::castBatch, false, self);
    }

    /** The batcher's sink: one sender at a time, in order. */
    private void castBatch(byte[] batch) {
        channel.abcast(batch);
    }

    void membership(Membership m) {
        this.membership = m;
    }

    /** Casts this replica's endpoint into the total order, so every replica adds it to the group reference. */
    void announce(String endpoint) {
        long now = System.currentTimeMillis();
        batcher.cast(new Request(new RequestId(member + "/announce", now), self, new byte[0], ANNOUNCE, 2, false,
                0, 0, 0, endpoint.getBytes(StandardCharsets.UTF_8), false, now, 0).encode());
    }

    Batcher batcher() {
        return batcher;
    }

    /** Null when this replica executes and answers requests; otherwise why not (for TRANSIENT). */
    String notServing() {
        return notServing;
    }

    /** Waits up to {@code millis} until this replica serves; returns whether it does. */
    boolean awaitServing(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (servingChanged) {
            for (long left = millis; notServing != null; left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
                if (left <= 0) {
                    return false;
                }
                servingChanged.wait(left);
            }
            return true;
        }
    }

    /**
     * The application activated its objects: fetch the state if this replica needs it, and wait (up to
     * {@code waitMillis}) until it holds a current state, or learns that the group has no primary yet (then it
     * serves once one forms).
     *
     * @return null when it may go on, else why not
     */
    String activated(long waitMillis) {
        transfer.ready();
        try {
            started.get(waitMillis, TimeUnit.MILLISECONDS);
            return null;
        } catch (java.util.concurrent.TimeoutException e) {
            return "did not obtain the group's state within " + waitMillis + " ms (fts.state.timeout); last: "
                    + transfer.lastRefusal();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while obtaining the group's state";
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause().toString();
        }
    }

    /** Stage 5 begins: the request's thread enters the batching doorway (long doorway). */
    void enter() {
        batcher.enter();
    }

    /** The request failed before its cast: its thread leaves the doorway. */
    void leave() {
        batcher.leave();
    }

    /**
     * Stages 5-6: casts {@code r} into the current batch ({@code entered}: the thread entered the doorway
     * earlier); the future completes with its reply once executed here (origin only).
     */
    CompletableFuture<Reply> cast(Request r, boolean entered) {
        if (!r.responseExpected()) {
            send(r, entered);
            return CompletableFuture.completedFuture(Reply.NONE);
        }
        Pending mine = new Pending();
        Pending p = pending.compute(r.id(), (id, old) -> {
            if (old == null) {
                return mine;
            }
            old.waiters++;
            return old;
        });
        if (p != mine) {
            // A retry of a request still in flight from this replica: wait for that one execution.
            if (entered) {
                batcher.leave();
            }
            return p.reply;
        }
        send(r, entered);
        return mine.reply;
    }

    private void send(Request r, boolean entered) {
        byte[] bytes = r.encode();
        if (entered) {
            batcher.exit(bytes);
        } else {
            batcher.cast(bytes);
        }
    }

    /**
     * A foreground thread gave up waiting for {@code id} (timeout). The execution still happens; the entry goes
     * when its last waiter leaves, so a retry that joined it still gets the reply.
     */
    void abandon(RequestId id, CompletableFuture<Reply> waitedFor) {
        pending.computeIfPresent(id, (k, p) -> p.reply == waitedFor && --p.waiters == 0 ? null : p);
    }

    ReplyCache cache() {
        return cache;
    }

    // --- stage 7: delivery (group thread): decode and hand to the background pool ---

    @Override
    public void deliver(MemberId sender, byte[] payload) {
        List<Request> requests = new ArrayList<>();
        try {
            for (byte[] m : BatchCodec.decode(payload, 0)) {
                requests.add(Request.decode(m));
            }
        } catch (RuntimeException e) {
            // Every replica receives the same bytes and drops them alike, whole: no divergence.
            LOG.error("{}: dropped an undecodable batch from {}: {}", self, sender, e.getMessage());
            requests.clear();
        }
        if (sender.equals(member)) {
            batcher.ownBatchDelivered();
        }
        boolean execute = standing.current();
        for (Request r : requests) {
            if (r.objectId().length == 0 && StateTransfer.MARKER.equals(r.operation())) {
                marker(r);
            } else if (execute) {
                dispatch(r);
            } else if (!transfer.buffered(r)) {
                notExecuted(r);   // the state this replica fetches will hold it
            }
        }
    }

    /** Markers count in any standing: they change no state. */
    private void marker(Request r) {
        try {
            transfer.onMarker(r);
        } catch (RuntimeException e) {   // the same bytes everywhere: every replica skips it alike
            LOG.error("{}: dropped a malformed state request from {}: {}", self, r.origin(), e.getMessage());
        }
    }

    private void dispatch(Request r) {
        if (r.objectId().length == 0) {
            control(r);
            return;
        }
        lanes[Math.floorMod(new ObjectKey(r.objectId()).hashCode(), lanes.length)].execute(() -> execute(r));
    }

    /** A delivery this replica does not execute (its state is not current, and it is not buffering). */
    private void notExecuted(Request r) {
        if (self.equals(r.origin())) {
            Pending p = pending.remove(r.id());
            if (p != null) {
                p.reply.completeExceptionally(new IllegalStateException("replica " + self + " " + notServing));
            }
        }
    }

    /** Requests to no object are the GOA's own, applied in delivery order. */
    private void control(Request r) {
        if (ANNOUNCE.equals(r.operation()) && membership != null) {
            String endpoint = new String(r.body(), StandardCharsets.UTF_8);
            atCut(() -> {
                if (membership.add(endpoint)) {
                    LOG.info("{}: replica {} at {} joined the group reference: {}", self, r.origin(), endpoint,
                            membership.current());
                }
            });
        } else {
            LOG.warn("{}: ignored control request {} from {}", self, r.operation(), r.origin());
        }
    }

    // --- stages 8-10: execute, cache, answer ---

    private void execute(Request r) {
        Reply reply = cache.lookup(r.id(), r.timestamp());
        if (reply == null) {
            reply = replay.execute(r, objects.get(new ObjectKey(r.objectId())));
            if (r.keepUntil() > 0) {
                cache.put(r.id(), reply, r.timestamp(), r.keepUntil());
            }
        }
        if (self.equals(r.origin())) {
            Pending p = pending.remove(r.id());
            if (p != null) {
                p.reply.complete(reply);
            }
        }
    }

    // --- membership ---

    @Override
    public void viewAccepted(View v) {
        standing.onView(v);
        LOG.info("{}: view {}{}", self, v, standing.notServing() == null ? "" : " (it " + standing.notServing() + ")");
        standingChanged(false, null);
    }

    @Override
    public void epochOpened(Epoch e) {
        if (e.gap()) {
            batcher.forgetInFlight();   // what it cast before the gap is not given back to it
        }
        if (standing.onEpoch(e)) {
            LOG.warn("{}: its state misses part of the group's history (epoch {}); it fetches the group's state",
                    self, e.id());
        }
        LOG.info("{}: epoch {} open ({} members, state {})", self, e.id(), e.members().size(),
                standing.current() ? "current" : "to fetch" + (e.provider() == null ? "" : " from " + e.provider()));
        standingChanged(e.gap(), e.provider());
    }

    @Override
    public void notPrimary(View v, String reason) {
        standing.onNotPrimary(reason);
        LOG.info("{}: view {} is not primary: {}", self, v.id(), reason);
        standingChanged(false, null);
    }

    private void standingChanged(boolean gap, MemberId provider) {
        synchronized (servingChanged) {
            notServing = standing.notServing();
            servingChanged.notifyAll();
        }
        if (notServing != null) {
            IllegalStateException why = new IllegalStateException("replica " + self + " " + notServing);
            List<Pending> waiting = new ArrayList<>(pending.values());
            pending.clear();
            waiting.forEach(p -> p.reply.completeExceptionally(why));
            if (!standing.everOpened() && notServing != null && standing.view() != null
                    && !notServing.equals("is obtaining the group's state")) {
                started.complete(null);   // no primary yet: activate() returns, the replica serves once one forms
            }
        } else {
            started.complete(null);
        }
        transfer.onStanding(standing.view(), standing.epochOpen(), !standing.current(), gap, provider);
    }

    @Override
    public void receive(MemberId sender, byte[] payload) {
        Direct.Message m;
        try {
            m = Direct.read(payload);
        } catch (IllegalArgumentException e) {
            LOG.warn("{}: dropped a malformed message from {}: {}", self, sender, e.getMessage());
            return;
        }
        transfer.onDirect(sender, m);
    }

    // --- StateTransfer.Host ---

    @Override
    public MemberId member() {
        return member;
    }

    @Override
    public void cast(Request marker) {
        batcher.cast(marker.encode());
    }

    @Override
    public void send(MemberId to, byte[] message) {
        try {
            channel.send(to, message);
        } catch (RuntimeException e) {
            LOG.info("{}: message to {} not sent: {}", self, to, e.getMessage());
        }
    }

    @Override
    public void atCut(Runnable action) {
        if (lanes.length == 1) {
            lanes[0].execute(action);
            return;
        }
        CyclicBarrier cut = new CyclicBarrier(lanes.length, action);
        for (ExecutorService lane : lanes) {
            lane.execute(() -> {
                try {
                    cut.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (java.util.concurrent.BrokenBarrierException e) {
                    LOG.error("{}: execution cut broken", self, e);
                }
            });
        }
    }

    @Override
    public String cannotProvide() {
        if (!standing.current()) {
            return "its own state is not current";
        }
        return standing.epochOpen() ? null : "its view's epoch is not open";
    }

    @Override
    public byte[] snapshot() throws Snapshot.StateException {
        return Snapshot.take(objects, cache, membership);
    }

    @Override
    public void install(byte[] snapshot, List<Request> buffered) throws Snapshot.StateException {
        CompletableFuture<Snapshot.StateException> done = new CompletableFuture<>();
        atCut(() -> {   // nothing executes here while not current; this waits for what already was queued
            try {
                Snapshot.install(snapshot, objects, cache, membership);
                done.complete(null);
            } catch (Snapshot.StateException e) {
                done.complete(e);
            } catch (RuntimeException e) {
                done.complete(new Snapshot.StateException("installing failed: " + e));
            }
        });
        Snapshot.StateException failed = done.join();
        if (failed != null) {
            throw failed;
        }
        standing.installed();
        channel.synced();   // on the delivery thread: the group layer ignores it if a newer gap is queued
        for (Request r : buffered) {
            dispatch(r);
        }
        standingChanged(false, null);
    }

    /** SHA-256 of this replica's state at a cut of its execution (tests and tools compare replicas). */
    String stateDigest(long waitMillis) throws Exception {
        CompletableFuture<String> digest = new CompletableFuture<>();
        atCut(() -> {
            try {
                digest.complete(Snapshot.digest(Snapshot.take(objects, cache, membership)));
            } catch (Snapshot.StateException | RuntimeException e) {
                digest.completeExceptionally(e);
            }
        });
        return digest.get(waitMillis, TimeUnit.MILLISECONDS);
    }

    /** Sends what the batcher still holds; call while the channel is open, before {@link #shutdown()}. */
    void flush() {
        Batcher b = batcher;
        if (b != null) {
            b.close();
            LOG.info("{}: {}", self, b.stats().dump());
        }
    }

    /** Stops executing; call once the channel is closed (no more deliveries). */
    void shutdown() {
        transfer.shutdown();
        for (ExecutorService lane : lanes) {
            lane.shutdown();
        }
        for (ExecutorService lane : lanes) {
            try {
                lane.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        pending.values().forEach(p -> p.reply.completeExceptionally(new IllegalStateException("adaptor destroyed")));
    }
}
