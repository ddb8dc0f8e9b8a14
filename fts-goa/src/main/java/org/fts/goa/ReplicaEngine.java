package org.fts.goa;

import java.nio.ByteBuffer;
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
import java.util.concurrent.atomic.AtomicLong;

import org.fts.batching.BatchCodec;
import org.fts.batching.BatchPolicy;
import org.fts.batching.Batcher;
import org.fts.batching.Clock;
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
 * <p>Membership (docs/primary-view.md, docs/state-transfer.md, docs/uniform-replies.md): a replica executes
 * deliveries only while its view is primary and its state current ({@link PrimaryView}); otherwise it drops
 * them, or buffers them while a {@link StateTransfer} brings the state. With {@code fts.delivery=uniform} an
 * origin releases a reply only once its batch is held by a majority ({@link UniformReplies}).
 *
 * <p>Wire: each cast is the origin's batch number (8 bytes), then the batch ({@link BatchCodec}).
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
    private final PrimaryView primary;
    private final UniformReplies uniform;
    private final StateTransfer transfer;
    private final AtomicLong castSeq = new AtomicLong();

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

    ReplicaEngine(String self, MemberId member, Replay replay, ReplyCache cache, Map<ObjectKey, Servant> objects,
                  int lanes, int groupSize, boolean uniform, long stateAttemptMillis) {
        this.self = self;
        this.member = member;
        this.replay = replay;
        this.cache = cache;
        this.objects = objects;
        this.primary = new PrimaryView(groupSize);
        this.uniform = uniform ? new UniformReplies(self, primary.majority()) : null;
        this.transfer = new StateTransfer(this, stateAttemptMillis, self);
        this.lanes = new ExecutorService[lanes];
        for (int i = 0; i < lanes; i++) {
            String name = "fts-exec-" + self + "-" + i;
            this.lanes[i] = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }
    }

    /** Connects the engine to its channel, through a batcher of {@code policy} (stages 5-6). */
    void attach(GroupChannel ch, BatchPolicy policy) {
        this.channel = ch;
        this.batcher = new Batcher(policy, Clock.SYSTEM, this::castBatch, false, self);
    }

    /** The batcher's sink: one sender at a time, in order, so batch numbers follow the cast order. */
    private void castBatch(byte[] batch) {
        byte[] framed = new byte[8 + batch.length];
        ByteBuffer.wrap(framed).putLong(castSeq.incrementAndGet());
        System.arraycopy(batch, 0, framed, 8, batch.length);
        channel.abcast(framed);
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

    /**
     * The application activated its objects: fetch the state if this replica needs it, and wait (up to
     * {@code waitMillis}) until it holds a current state.
     *
     * @return null when current, else why not
     */
    String activated(long waitMillis) {
        transfer.ready();
        try {
            transfer.firstInstall().get(waitMillis, TimeUnit.MILLISECONDS);
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
        long seq = -1;
        try {
            seq = ByteBuffer.wrap(payload).getLong();
            for (byte[] m : BatchCodec.decode(payload, 8)) {
                requests.add(Request.decode(m));
            }
        } catch (RuntimeException e) {
            // Every replica receives the same bytes and drops them alike, whole: no divergence.
            LOG.error("{}: dropped an undecodable batch from {}: {}", self, sender, e.getMessage());
            requests.clear();
        }
        boolean own = sender.equals(member);
        if (own) {
            batcher.ownBatchDelivered();
        }
        if (uniform != null && seq >= 0) {
            if (own) {
                uniform.delivered(seq);
            } else {
                uniform.deliveredFrom(sender, seq);
            }
        }
        boolean execute = primary.primary() && primary.current();
        long ownSeq = own ? seq : -1;
        for (Request r : requests) {
            if (r.objectId().length == 0 && StateTransfer.MARKER.equals(r.operation())) {
                marker(r);
            } else if (execute) {
                dispatch(r, ownSeq);
            } else if (!transfer.buffered(r)) {
                dropped(r);
            }
        }
        flushAcksIfIdle();
    }

    private void flushAcksIfIdle() {
        if (uniform != null) {
            uniform.flushIfIdle(channel);
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

    private void dispatch(Request r, long ownSeq) {
        if (r.objectId().length == 0) {
            control(r);
            return;
        }
        lanes[Math.floorMod(new ObjectKey(r.objectId()).hashCode(), lanes.length)].execute(() -> execute(r, ownSeq));
    }

    /** A delivery this replica does not execute (not primary, or not current and not buffering). */
    private void dropped(Request r) {
        if (primary.current()) {
            LOG.warn("{}: left out a delivery outside a primary view; its state must be fetched again", self);
            primary.skipped();
            standingChanged();
        }
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

    private void execute(Request r, long ownSeq) {
        Reply cached = cache.lookup(r.id(), r.timestamp());
        Reply reply = cached;
        if (reply == null) {
            reply = replay.execute(r, objects.get(new ObjectKey(r.objectId())));
            if (r.keepUntil() > 0) {
                cache.put(r.id(), reply, r.timestamp(), r.keepUntil());
            }
        }
        if (self.equals(r.origin())) {
            Pending p = pending.remove(r.id());
            if (p != null) {
                Reply done = reply;
                if (uniform == null || ownSeq < 0) {
                    p.reply.complete(done);
                } else {
                    uniform.whenHeld(ownSeq).whenComplete((v, ex) -> {
                        if (ex == null) {
                            p.reply.complete(done);
                        } else {
                            p.reply.completeExceptionally(ex);
                        }
                    });
                }
            }
        }
    }

    // --- membership ---

    @Override
    public void viewAccepted(View v) {
        boolean lost = primary.onView(v);
        LOG.info("{}: view {} ({}primary, state {})", self, v, primary.primary() ? "" : "not ",
                primary.current() ? "current" : "to fetch");
        if (lost) {
            LOG.warn("{}: its state is no longer current (view {}); it will fetch the group's state", self, v);
        }
        standingChanged();
        flushAcksIfIdle();
    }

    private void standingChanged() {
        notServing = primary.notServing();
        if (notServing != null) {
            IllegalStateException why = new IllegalStateException("replica " + self + " " + notServing);
            if (uniform != null) {
                uniform.fail(why, castSeq.get());
            }
            List<Pending> waiting = new ArrayList<>(pending.values());
            pending.clear();
            waiting.forEach(p -> p.reply.completeExceptionally(why));
        }
        transfer.onStanding(primary.view(), primary.primary(), !primary.current());
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
        if (m.type() == Direct.HELD) {
            if (uniform != null) {
                uniform.held(PrimaryView.replicaOf(sender), m.seq());
            }
        } else {
            transfer.onDirect(sender, m);
        }
        flushAcksIfIdle();
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
        if (!primary.current()) {
            return "its own state is not current";
        }
        return primary.primary() ? null : "its view is not primary";
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
        primary.installed();
        for (Request r : buffered) {
            dispatch(r, -1);
        }
        standingChanged();
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

    void shutdown() {
        Batcher b = batcher;
        if (b != null) {
            b.close();
            LOG.info("{}: {}", self, b.stats().dump());
        }
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
