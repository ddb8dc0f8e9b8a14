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
 * already holds its reply (a retry the group ordered again); its reply is cached for retries (FT clients
 * only), and at the replica that received it the waiting foreground thread gets it ({@link CastPath}).
 */
final class Execution {
    private final String self;
    private final Replay replay;
    private final ReplyCache cache;
    private final Map<ObjectKey, org.omg.PortableServer.Servant> objects;
    private final ExecutionLanes lanes;
    private final CastPath castPath;

    Execution(String self, Replay replay, ReplyCache cache, Map<ObjectKey, Servant> objects, ExecutionLanes lanes,
              CastPath castPath) {
        this.self = self;
        this.replay = replay;
        this.cache = cache;
        this.objects = objects;
        this.lanes = lanes;
        this.castPath = castPath;
    }

    /** Queues {@code r} behind everything delivered before it to the same object (delivery thread). */
    void submit(Request r) {
        ObjectKey key = new ObjectKey(r.objectId());
        lanes.execute(key, () -> execute(r, key));
    }

    private void execute(Request r, ObjectKey key) {
        Reply reply = cache.lookup(r.id(), r.timestamp());
        if (reply == null && cache.evictedEarly(r.id())) {
            reply = replay.replyEvicted(r);   // it executed: never twice
        } else if (reply == null && cache.pastKeeping(r.keepUntil())) {
            reply = replay.replyExpired(r);   // ordered after its client gave up: it may have executed already
        } else if (reply == null) {
            reply = replay.execute(r, objects.get(key));
            if (r.keepUntil() > 0) {
                cache.put(r.id(), reply, r.timestamp(), r.keepUntil());
            }
        }
        if (self.equals(r.origin())) {
            castPath.answered(r.id(), reply);
        }
    }
}
