package org.fts.goa;

import org.fts.goa.intake.CastPath;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.Reply;
import org.fts.goa.intake.ReplyCache;
import org.fts.goa.intake.Request;
import java.util.Map;

import org.omg.PortableServer.Servant;

/**
 * Stages 8-10 at every replica: a delivered request executes on its object's lane, unless the reply cache
 * already holds its reply (a retry the group ordered again), in its {@link RequestContext}; its reply is cached for
 * retries (FT clients only), counted at its position and hashed for the {@link DivergenceCheck}, and at the replica
 * that received it the waiting foreground thread gets it ({@link CastPath}).
 */
final class Execution {
    private final String self;
    private final Replay replay;
    private final ReplyCache cache;
    private final Map<ObjectKey, org.omg.PortableServer.Servant> objects;
    private final ExecutionLanes lanes;
    private final CastPath castPath;
    private final ExecutionRecord record;
    private final DivergenceCheck divergence;
    private final boolean oneLane;
    private final String group;
    /** The adaptor's object table: what a request context belongs to. */
    private final Object table;

    /** @param oneLane one execution lane: positions are in the order, so requests get a {@link RequestContext} */
    Execution(String self, String group, Object table, Replay replay, ReplyCache cache, Map<ObjectKey, Servant> objects, ExecutionLanes lanes,
              CastPath castPath, ExecutionRecord record, DivergenceCheck divergence, boolean oneLane) {
        this.oneLane = oneLane;
        this.group = group;
        this.table = table;
        this.self = self;
        this.record = record;
        this.divergence = divergence;
        this.replay = replay;
        this.cache = cache;
        this.objects = objects;
        this.lanes = lanes;
        this.castPath = castPath;
    }

    /** A replica's clock offset, delivered (delivery thread): the calendar takes it at this position. */
    void delivered(org.fts.goa.intake.Cast.ClockOffset o) {
        lanes.atCut(() -> record.calendar().offset(o.replica(), o.offsetMillis()));
    }

    /** A position base, delivered (delivery thread): an unknown position becomes 0 here, at every replica. */
    void delivered(org.fts.goa.intake.Cast.PositionBase b) {
        lanes.atCut(record::align);
    }

    /** A replica's reply digest, delivered (delivery thread): compared with this replica's own at this position. */
    void delivered(org.fts.goa.intake.Cast.ReplyDigest d) {
        if (oneLane) {   // the check runs with one lane only, after everything delivered before it executed
            lanes.atCut(() -> divergence.delivered(d));
        }
    }

    /** Queues {@code r} behind everything delivered before it to the same object (delivery thread). */
    void submit(Request r) {
        ObjectKey key = new ObjectKey(r.objectId());
        lanes.execute(key, () -> execute(r, key));
    }

    /**
     * The servant executes {@code r} with its {@link RequestContext}: the position, the group's calendar time and a
     * seed, all decided by the order (the same at every replica).
     */
    private Reply executeInContext(Request r, ObjectKey key) {
        Servant servant = objects.get(key);
        // The servant's calls to object groups carry this request's identity, the same on every replica.
        java.util.function.Supplier<Reply> body = () -> org.fts.ft.client.CallerIdentity.within(group,
                r.id().clientId(), r.id().retentionId(), () -> replay.execute(r, servant));
        if (!oneLane) {   // positions of different lanes' executions are not ordered: no context
            return body.get();
        }
        long position = record.position();
        long time = record.calendar().time(cache.groupTime());
        long seed = position * 0x9E3779B97F4A7C15L ^ r.id().clientId().hashCode() * 31L ^ r.id().retentionId();
        return RequestContext.within(new RequestContext(position, time, seed, r.operation(), r.origin(), table), body);
    }

    private void execute(Request r, ObjectKey key) {
        Reply reply = cache.lookup(r.id(), r.timestamp());
        if (reply == null && cache.evictedEarly(r.id())) {
            reply = replay.replyEvicted(r);   // it executed: never twice
        } else if (reply == null && cache.pastKeeping(r.keepUntil())) {
            reply = replay.replyExpired(r);   // ordered after its client gave up: it may have executed already
        } else if (reply == null) {
            reply = executeInContext(r, key);
            if (r.keepUntil() > 0) {
                cache.put(r.id(), reply, r.timestamp(), r.keepUntil());
            }
        }
        divergence.executed(record.next(), key, r.operation(), reply);
        if (self.equals(r.origin())) {
            castPath.answered(r.id(), reply);
        }
    }
}
