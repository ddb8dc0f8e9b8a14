package org.fts.goa.intake;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupVersionContext;
import org.fts.ft.Cdr;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.TRANSIENT;
import org.omg.IOP.ServiceContext;
import org.omg.PortableServer.Servant;

/**
 * Stages 0-5 of every request, whichever listener read it (the adaptor's {@code Dispatcher} for JacORB's, its {@code
 * FrontDispatch} for its own), and stage 10's reply contexts: one pipeline with a sealed outcome, which the listener
 * only turns into I/O. A refusal is thrown as the system exception the client gets (TRANSIENT while this replica does not
 * serve, OBJECT_NOT_EXIST, IMP_LIMIT for oversized arguments, MARSHAL from the capture), before anything is cast.
 */
public final class RequestIntake {
    /** What a listener knows of a request before the intake captures it. */
    public interface Incoming {
        String operation();

        boolean responseExpected();

        /** The marshalled arguments' size, for the stage 1 guard. */
        long argumentBytes();

        FtContexts ft();

        /** The client's connection, as placement knows it. */
        Object connection();

        /**
         * Stage 4: the request as the group casts it, its arguments as raw bytes.
         *
         * @param keepUntil how long its reply is kept, in the group's time (0 for a oneway: nobody retries it)
         */
        Request capture(RequestId id, byte[] oid, long now, long keepUntil);
    }

    /** What became of a request the intake admitted. */
    public sealed interface Outcome permits Forward, Cached, Read, Cast, Oneway {
    }

    /** Stage 0: served at another replica; nothing ran here. */
    public record Forward(org.omg.CORBA.Object reference) implements Outcome {
    }

    /** A retry of a request already executed: the same reply, with this request's FT contexts. */
    public record Cached(Reply reply, FtContexts ft, byte[] oid) implements Outcome {
    }

    /** A declared read: executed at this replica once the group's order allows (docs/reads.md). */
    public record Read(RequestId id, CompletableFuture<Reply> done, FtContexts ft, byte[] oid) implements Outcome {
    }

    /** Cast in a batch; its reply comes when this replica executes it in the total order. */
    public record Cast(RequestId id, CompletableFuture<Reply> done, FtContexts ft, byte[] oid) implements Outcome {
    }

    /** A oneway, cast: nothing to answer. */
    public record Oneway() implements Outcome {
    }

    /** Stage 5r as the intake sees it: which requests are declared reads, and reading one (docs/reads.md). */
    public interface Reads {
        /** Whether {@code operation} on object {@code oid} is a declared read. */
        boolean isRead(byte[] oid, String operation);

        /** Executes the read at this replica once the group's order allows; its reply, or a refusal, completes it. */
        CompletableFuture<Reply> read(Request request);
    }

    private static final Oneway ONEWAY = new Oneway();

    private final String self;
    private final String incarnation;
    private final AtomicLong counter = new AtomicLong();
    private final Map<ObjectKey, Servant> objects;
    private final Standing standing;
    private final ReplyCache cache;
    private final CastPath castPath;
    private final Membership membership;
    private final Function<byte[], String> iogr;
    private final int maxRequestSize;
    private final Reads reads;
    private volatile Placement placement;
    private final RequestOutcomes outcomes;

    /**
     * @param maxRequestSize {@code fts.request.max_size}: the largest arguments a request may carry
     * @param iogr           the object's current group reference, stringified, for clients whose FT_GROUP_VERSION
     *                       is old
     * @param placement      stage 0; null until {@link #place(Placement)} (the adaptor's listener opens before it
     *                       exists)
     */
    public RequestIntake(String replicaId, int maxRequestSize, Map<ObjectKey, Servant> objects, Standing standing,
                         ReplyCache cache, CastPath castPath, Membership membership, Function<byte[], String> iogr,
                         Placement placement, Reads reads, RequestOutcomes outcomes) {
        this.outcomes = outcomes;
        this.self = replicaId;
        // Ids made up for plain clients must not repeat across restarts of a replica (the cache would answer a new
        // request with an old reply): each incarnation has its own prefix.
        this.incarnation = self + "/" + UUID.randomUUID();
        this.objects = objects;
        this.standing = standing;
        this.cache = cache;
        this.castPath = castPath;
        this.membership = membership;
        this.iogr = iogr;
        this.maxRequestSize = maxRequestSize;
        this.reads = reads;
        this.placement = placement;
    }

    public void place(Placement p) {
        this.placement = p;
    }

    /** This replica's id: the origin a captured request names. */
    public String self() {
        return self;
    }

    /** Whether {@code oid} (unmarked) names an object of the group here. */
    public boolean knows(byte[] oid) {
        return oid != null && objects.containsKey(new ObjectKey(oid));
    }

    /**
     * Stages 0-5 for a request to the object {@code named} (its id as the client's key names it, perhaps marked by
     * placement; null if the key names none of the group's).
     */
    public Outcome admit(byte[] named, Incoming in) {
        boolean placed = named != null && References.marked(named);   // a forwarded reference's key
        byte[] oid = named == null ? null : References.unmarked(named);
        long interruptions = standing.interruptions();
        String notServing = standing.notServing();
        if (notServing != null) {   // before the cache: a replica out of the primary may hold stale replies
            // and before the objects: a replica still starting has none yet, but the group has
            outcomes.notServing.increment();
            throw new TRANSIENT("FTS: replica " + self + " " + notServing, 0, CompletionStatus.COMPLETED_NO);
        }
        if (oid == null) {
            outcomes.noObject.increment();
            throw new OBJECT_NOT_EXIST("FTS: no object with that key in this group", 0, CompletionStatus.COMPLETED_NO);
        }
        // An id unknown here is ordered all the same: a request the group executed before this one may have created
        // it (this replica has not executed that request yet), or destroyed it; execution answers OBJECT_NOT_EXIST
        // at every replica alike if it is not there then.
        String there = placement.place(in.connection(), in.responseExpected(), placed);
        if (there != null) {   // stage 0: a new connection goes to a less loaded replica
            return new Forward(placement.reference(oid, there));
        }
        refuseOversized(in);
        FtContexts ft = in.ft();
        long now = cache.clock().estimate();   // the group's time, never this replica's wall clock
        RequestId id;
        long keepUntil;
        if (ft.id() != null) {   // only an FT client's id can have been seen before
            Reply done = cache.peek(ft.id());
            if (done != null) {
                outcomes.fromCache.increment();
                return new Cached(done, ft, oid);
            }
            id = ft.id();
            keepUntil = cache.keepUntil(now, System.currentTimeMillis(), ft.expirationMillis());
        } else {
            id = new RequestId(incarnation, counter.incrementAndGet());
            keepUntil = 0;   // nobody can retry it
        }
        boolean read = in.responseExpected() && reads.isRead(oid, in.operation());   // stage 5r: docs/reads.md
        CastPath.Ticket ticket = read ? null : castPath.enter();
        Request request;
        try {
            request = in.capture(id, oid, now, keepUntil);
        } catch (RuntimeException e) {
            if (ticket != null) {
                ticket.cancel();
            }
            outcomes.malformed.increment();
            throw e;
        }
        CompletableFuture<Reply> done = read ? reads.read(request) : castPath.cast(request, ticket);
        if (!read) {
            outcomes.ordered.increment();
        }
        if (!request.responseExpected()) {
            return ONEWAY;
        }
        if (read) {
            return new Read(id, done, ft, oid);
        }
        if (standing.interruptions() != interruptions) {
            // It stopped serving while this request waited in the doorway: the waiting requests were failed, maybe
            // before this one was registered, and its cast may have gone to a view that is not primary.
            castPath.notExecuted(id, new IllegalStateException("replica " + self + " stopped serving while "
                    + in.operation() + " was being cast"));
        }
        return new Cast(id, done, ft, oid);
    }

    /** The listener gave up waiting for {@code id} (fts.request.timeout): a late reply is dropped. */
    public void abandon(RequestId id, CompletableFuture<Reply> done) {
        outcomes.timedOut.increment();
        castPath.abandon(id, done);
    }

    /**
     * Stage 10's service contexts for an FT client (none for a plain one): this replica's loads, the group's
     * version, and the object's newer reference when the client's is older.
     */
    public List<ServiceContext> replyContexts(FtContexts ft, byte[] oid, Object connection) {
        if (ft.clientVersion() < 0) {
            return List.of();
        }
        List<ServiceContext> out = new ArrayList<>(3);
        byte[] loads = placement.loadsFor(connection);
        if (loads != null) {
            out.add(new ServiceContext(FtConstants.FTS_GROUP_LOAD, loads));
        }
        Membership.Snapshot group = membership.current();
        out.add(new ServiceContext(FtConstants.FT_GROUP_VERSION, new FtGroupVersionContext(group.version()).encode()));
        if (ft.clientVersion() < group.version()) {
            out.add(new ServiceContext(FtConstants.FTS_GROUP_REFERENCE,
                    new Cdr.Writer().string(iogr.apply(oid)).bytes()));
        }
        return out;
    }

    /**
     * Stage 1 guard: a request whose marshalled arguments exceed {@code fts.request.max_size} never reaches the
     * group (every replica would hold it, several times over, and one large enough could exhaust their heaps). The
     * client gets IMP_LIMIT, COMPLETED_NO, naming the limit; nothing else happens anywhere.
     */
    private void refuseOversized(Incoming in) {
        long size = in.argumentBytes();
        if (size > maxRequestSize) {
            outcomes.tooLarge.increment();
            throw new IMP_LIMIT("FTS: " + in.operation() + " carries " + size + " bytes of arguments; "
                    + "fts.request.max_size is " + maxRequestSize, 0, CompletionStatus.COMPLETED_NO);
        }
    }
}
