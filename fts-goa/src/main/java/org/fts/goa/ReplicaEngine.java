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
    private final Map<RequestId, CompletableFuture<Reply>> pending = new ConcurrentHashMap<>();
    private volatile Batcher batcher;

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
        CompletableFuture<Reply> f = new CompletableFuture<>();
        if (r.responseExpected()) {
            CompletableFuture<Reply> inFlight = pending.putIfAbsent(r.id(), f);
            if (inFlight != null) {
                // A retry of a request still in flight from this replica: wait for that one execution.
                if (entered) {
                    batcher.leave();
                }
                return inFlight;
            }
        } else {
            f.complete(Reply.NONE);
        }
        byte[] bytes = r.encode();
        if (entered) {
            batcher.exit(bytes);
        } else {
            batcher.cast(bytes);
        }
        return f;
    }

    /** The foreground gave up on {@code id} (timeout): forget the waiter, the execution still happens. */
    void abandon(RequestId id) {
        pending.remove(id);
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
            lanes[Math.floorMod(new ObjectKey(r.objectId()).hashCode(), lanes.length)].execute(() -> execute(r));
        }
    }

    // --- stages 8-10: execute, cache, answer ---

    private void execute(Request r) {
        Reply reply = cache.lookup(r.id(), r.timestamp());
        if (reply == null) {
            reply = replay.execute(r, objects.get(new ObjectKey(r.objectId())));
            if (r.responseExpected()) {
                cache.put(r.id(), reply, r.timestamp());
            }
        }
        if (self.equals(r.origin())) {
            CompletableFuture<Reply> f = pending.remove(r.id());
            if (f != null) {
                f.complete(reply);
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
        pending.values().forEach(f -> f.completeExceptionally(new IllegalStateException("adaptor destroyed")));
    }
}
