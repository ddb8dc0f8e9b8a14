package org.fts.goa;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

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
 */
final class ReplicaEngine implements GroupListener {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaEngine.class);

    private final String self;
    private final Replay replay;
    private final ReplyCache cache;
    private final Map<ObjectKey, Servant> objects;
    private final ExecutorService[] lanes;
    /** A request this replica cast and waits for, and how many foreground threads wait (retries join). */
    private static final class Pending {
        final CompletableFuture<Reply> reply = new CompletableFuture<>();
        int waiters = 1;   // guarded by the map's compute
    }

    private final Map<RequestId, Pending> pending = new ConcurrentHashMap<>();
    private volatile Batcher batcher;
    private volatile Membership membership;
    /** Operation name of the control request announcing a replica's endpoint (empty object id). */
    static final String ANNOUNCE = "_fts_announce";

    ReplicaEngine(String self, Replay replay, ReplyCache cache, Map<ObjectKey, Servant> objects, int lanes) {
        this.self = self;
        this.replay = replay;
        this.cache = cache;
        this.objects = objects;
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
        this.batcher = new Batcher(policy, Clock.SYSTEM, ch::abcast, false, self);
    }

    void membership(Membership m) {
        this.membership = m;
    }

    /** Casts this replica's endpoint into the total order, so every replica adds it to the group reference. */
    void announce(String endpoint) {
        long now = System.currentTimeMillis();
        batcher.cast(new Request(new RequestId(self + "/announce", now), self, new byte[0], ANNOUNCE, 2, false,
                0, 0, 0, endpoint.getBytes(java.nio.charset.StandardCharsets.UTF_8), false, now, 0).encode());
    }

    Batcher batcher() {
        return batcher;
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
            for (byte[] m : BatchCodec.decode(payload)) {
                requests.add(Request.decode(m));
            }
        } catch (RuntimeException e) {
            // Every replica receives the same bytes and drops them alike, whole: no divergence.
            LOG.error("{}: dropped an undecodable batch from {}: {}", self, sender, e.getMessage());
            requests.clear();
        }
        if (sender.name().equals(self)) {
            batcher.ownBatchDelivered();
        }
        for (Request r : requests) {
            if (r.objectId().length == 0) {
                control(r);
                continue;
            }
            lanes[Math.floorMod(new ObjectKey(r.objectId()).hashCode(), lanes.length)].execute(() -> execute(r));
        }
    }

    /** Requests to no object are the GOA's own, applied in delivery order. */
    private void control(Request r) {
        if (ANNOUNCE.equals(r.operation()) && membership != null) {
            String endpoint = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
            if (membership.add(endpoint)) {
                LOG.info("{}: replica {} at {} joined the group reference: {}", self, r.origin(), endpoint,
                        membership.current());
            }
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

    @Override
    public void viewAccepted(View v) {
        LOG.info("{}: view {}", self, v);
    }

    void shutdown() {
        Batcher b = batcher;
        if (b != null) {
            b.close();
            LOG.info("{}: {}", self, b.stats().dump());
        }
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
