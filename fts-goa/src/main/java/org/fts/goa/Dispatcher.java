package org.fts.goa;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.fts.ft.Cdr;
import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupVersionContext;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;
import org.omg.CORBA.MARSHAL;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.ORB;
import org.omg.CORBA.TRANSIENT;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.IOP.ServiceContext;
import org.omg.PortableServer.Servant;

/**
 * Stages 1-5 and 10, on JacORB's request thread (the paper's foreground pool), for every object of the
 * group: it checks, identifies and captures each request, casts it ({@link CastPath}), waits for this
 * replica to execute it in the total order, and writes the reply back on the client's connection.
 */
final class Dispatcher {
    private final ORB orb;
    private final String self;
    private final String incarnation;
    private final AtomicLong counter = new AtomicLong();
    private final Map<ObjectKey, Servant> objects;
    private final Standing standing;
    private final ReplyCache cache;
    private final CastPath castPath;
    private final long timeoutMillis;
    private final Membership membership;
    private final Function<byte[], String> iogr;
    private final int maxRequestSize;
    private final Placement placement;
    private final ReadPath reads;

    /**
     * @param iogr    the object's current group reference, stringified, for clients whose FT_GROUP_VERSION is old
     */
    Dispatcher(ORB orb, GoaConfig config, Map<ObjectKey, Servant> objects, ReplicaEngine engine,
               Membership membership, Function<byte[], String> iogr, Placement placement, ReadPath reads) {
        this.placement = placement;
        this.reads = reads;
        this.orb = orb;
        this.self = config.replicaId();
        // Ids made up for plain clients must not repeat across restarts of a replica (the cache would answer
        // a new request with an old reply): each incarnation has its own prefix.
        this.incarnation = self + "/" + UUID.randomUUID();
        this.objects = objects;
        this.standing = engine.standing();
        this.cache = engine.cache();
        this.castPath = engine.castPath();
        this.timeoutMillis = config.requestTimeout().toMillis();
        this.membership = membership;
        this.iogr = iogr;
        this.maxRequestSize = config.maxRequestSize();
    }

    OutputStream invoke(byte[] named, String operation, InputStream in, ResponseHandler rh) {
        boolean placed = References.marked(named);   // a forwarded reference's key: the object is the unmarked id
        byte[] oid = References.unmarked(named);
        long interruptions = standing.interruptions();
        String notServing = standing.notServing();
        if (notServing != null) {   // before the cache: a replica out of the primary may hold stale replies
            // and before the objects: a replica still starting has none yet, but the group has
            throw new TRANSIENT("FTS: replica " + self + " " + notServing, 0, CompletionStatus.COMPLETED_NO);
        }
        if (!objects.containsKey(new ObjectKey(oid))) {
            throw new OBJECT_NOT_EXIST("FTS: no object " + new ObjectKey(oid) + " in this group", 0,
                    CompletionStatus.COMPLETED_NO);
        }
        String there = placement.place(Jacorb.connection(rh), Jacorb.responseExpected(rh), placed);
        if (there != null) {   // stage 0: a new connection goes to a less loaded replica; nothing ran here
            Jacorb.forward(rh, placement.reference(oid, there));
            return null;
        }
        refuseOversized(operation, in);
        FtContexts ft = FtContexts.of(Jacorb.serviceContexts(rh));
        long now = cache.clock().estimate();   // the group's time, never this replica's wall clock
        RequestId id;
        long keepUntil;
        if (ft.id() != null) {   // only an FT client's id can have been seen before
            Reply done = cache.peek(ft.id());
            if (done != null) {
                return answer(done, rh, ft, oid);   // a retry of a request already executed: the same reply
            }
            id = ft.id();
            keepUntil = cache.keepUntil(now, System.currentTimeMillis(), ft.expirationMillis());
        } else {
            id = new RequestId(incarnation, counter.incrementAndGet());
            keepUntil = 0;   // nobody can retry it
        }
        boolean read = Jacorb.responseExpected(rh) && reads.isRead(oid, operation);   // stage 5r: docs/reads.md
        CastPath.Ticket ticket = read ? null : castPath.enter();
        Request request;
        try {
            request = Capture.capture(id, self, oid, operation, in, rh, now, keepUntil);
        } catch (RuntimeException e) {
            if (ticket != null) {
                ticket.cancel();
            }
            throw e;
        }
        CompletableFuture<Reply> done = read ? reads.read(request) : castPath.cast(request, ticket);
        if (!request.responseExpected()) {
            return null;
        }
        if (!read && standing.interruptions() != interruptions) {
            // It stopped serving while this request waited in the doorway: the waiting requests were failed,
            // maybe before this one was registered, and its cast may have gone to a view that is not primary.
            castPath.notExecuted(id, new IllegalStateException("replica " + self + " stopped serving while "
                    + operation + " was being cast"));
        }
        return answer(await(done, id, operation), rh, ft, oid);
    }

    private void withLoads(OutputStream out, ResponseHandler rh) {
        byte[] loads = placement.loadsFor(Jacorb.connection(rh));
        if (loads != null) {
            Jacorb.addServiceContext(out, new ServiceContext(FtConstants.FTS_GROUP_LOAD, loads));
        }
    }

    private Reply await(CompletableFuture<Reply> done, RequestId id, String operation) {
        try {
            return done.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            castPath.abandon(id, done);
            throw new TRANSIENT("FTS: " + operation + " was not executed within " + timeoutMillis
                    + " ms (fts.request.timeout)", 0, CompletionStatus.COMPLETED_MAYBE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TRANSIENT("FTS: interrupted waiting for " + operation, 0, CompletionStatus.COMPLETED_MAYBE);
        } catch (ExecutionException e) {
            throw new TRANSIENT("FTS: " + e.getCause().getMessage(), 0, CompletionStatus.COMPLETED_MAYBE);
        }
    }

    /**
     * Stage 1 guard: a request whose marshalled arguments exceed {@code fts.request.max_size} never reaches the
     * group (every replica would hold it, several times over, and one large enough could exhaust their heaps).
     * The client gets IMP_LIMIT, COMPLETED_NO, naming the limit; nothing else happens anywhere.
     */
    private void refuseOversized(String operation, InputStream in) {
        long size = Jacorb.argumentBytes(in);
        if (size > maxRequestSize) {
            throw new IMP_LIMIT("FTS: " + operation + " carries " + size + " bytes of arguments; "
                    + "fts.request.max_size is " + maxRequestSize, 0, CompletionStatus.COMPLETED_NO);
        }
    }

    /** Stage 10: the reply, as this replica's JacORB sends it, with the group version for FT clients. */
    private OutputStream answer(Reply reply, ResponseHandler rh, FtContexts ft, byte[] oid) {
        switch (reply.kind()) {
            case NORMAL:
                return copy(reply, withGroupVersion(rh.createReply(), ft, oid, rh));
            case USER_EXCEPTION:
                return copy(reply, withGroupVersion(rh.createExceptionReply(), ft, oid, rh));
            case SYSTEM_EXCEPTION:
                throw Jacorb.readSystemException(orb, reply.body());
            default:
                return null;
        }
    }

    /** FT clients learn the group's version on every reply, and the new reference when theirs is older. */
    private OutputStream withGroupVersion(OutputStream out, FtContexts ft, byte[] oid, ResponseHandler rh) {
        if (ft.clientVersion() < 0) {
            return out;
        }
        withLoads(out, rh);
        Membership.Snapshot group = membership.current();
        Jacorb.addServiceContext(out, new ServiceContext(FtConstants.FT_GROUP_VERSION,
                new FtGroupVersionContext(group.version()).encode()));
        if (ft.clientVersion() < group.version()) {
            Jacorb.addServiceContext(out, new ServiceContext(FtConstants.FTS_GROUP_REFERENCE,
                    new Cdr.Writer().string(iogr.apply(oid)).bytes()));
        }
        return out;
    }

    private static OutputStream copy(Reply reply, OutputStream out) {
        // Replies are captured from an 8-aligned start; GIOP 1.2 reply bodies start 8-aligned too.
        int start = Jacorb.replyBodyStart(out);
        if (start % 8 != 0) {
            throw new MARSHAL("FTS: reply body starts at offset " + start
                    + ", not 8-aligned; use GIOP 1.2 (corbaloc::1.2@host:port)", 0, CompletionStatus.COMPLETED_YES);
        }
        out.write_octet_array(reply.body(), 0, reply.body().length);
        return out;
    }
}
