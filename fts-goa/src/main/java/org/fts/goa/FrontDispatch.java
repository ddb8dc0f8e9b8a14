package org.fts.goa;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.fts.ft.Cdr;
import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupVersionContext;
import org.fts.goa.frontend.Exchange;
import org.fts.goa.frontend.Giop;
import org.fts.goa.frontend.GiopRequest;
import org.fts.goa.frontend.GroupRequests;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.ORB;
import org.omg.CORBA.TRANSIENT;
import org.omg.IOP.ServiceContext;
import org.omg.PortableServer.Servant;

/**
 * Stages 0-5 and 10 for requests that arrive on the adaptor's own IIOP listener ({@link
 * org.fts.goa.frontend.FrontEnd}), on its event-loop thread, with no thread hand-off: the same checks, identity,
 * retry answers, capture and cast as {@link Dispatcher}, but nothing waits. The execution completes the request's
 * {@link Exchange}, whose connection's loop writes the reply.
 */
final class FrontDispatch implements GroupRequests {
    private final ORB orb;
    private final String self;
    private final String incarnation;
    private final AtomicLong counter = new AtomicLong();
    private final Map<ObjectKey, Servant> objects;
    private final Standing standing;
    private final ReplyCache cache;
    private final CastPath castPath;
    private final long timeoutNanos;
    private final Membership membership;
    private final Function<byte[], String> iogr;
    private final int maxRequestSize;
    private final String poaName;
    /** Object keys seen, and the ids of the group's objects they name. */
    private final Map<ByteBuffer, byte[]> keys = new ConcurrentHashMap<>();
    private final Function<byte[], String[]> interfaces;
    private volatile Placement placement;
    private volatile boolean open;
    private final ReadPath reads;

    FrontDispatch(ORB orb, GoaConfig config, Map<ObjectKey, Servant> objects, ReplicaEngine engine,
                  Membership membership, Function<byte[], String> iogr, String poaName,
                  Function<byte[], String[]> interfaces, ReadPath reads) {
        this.interfaces = interfaces;
        this.reads = reads;
        this.orb = orb;
        this.self = config.replicaId();
        this.incarnation = self + "/" + UUID.randomUUID();   // made-up ids never repeat across incarnations
        this.objects = objects;
        this.standing = engine.standing();
        this.cache = engine.cache();
        this.castPath = engine.castPath();
        this.timeoutNanos = config.requestTimeout().toNanos();
        this.membership = membership;
        this.iogr = iogr;
        this.maxRequestSize = config.maxRequestSize();
        this.poaName = poaName;
    }

    /** The POA manager was activated: the objects are there, requests are taken. */
    void open(Placement p) {
        this.placement = p;
        this.open = true;
    }

    @Override
    public void burst(boolean begins) {
        castPath.holdDoorway(begins);
    }

    @Override
    public ServiceContext exceptionDetail(String message) {
        return Jacorb.exceptionDetail(message);
    }

    @Override
    public boolean knows(byte[] objectKey) {
        byte[] oid = objectId(objectKey);
        return oid != null && objects.containsKey(new ObjectKey(References.unmarked(oid)));
    }

    private byte[] objectId(byte[] objectKey) {
        ByteBuffer k = ByteBuffer.wrap(objectKey);
        byte[] oid = keys.get(k);
        if (oid == null) {
            oid = Jacorb.objectId(objectKey, poaName);
            if (oid != null && objects.containsKey(new ObjectKey(References.unmarked(oid)))) {
                keys.put(k, oid);
            }
        }
        return oid;
    }

    @Override
    public void request(Exchange ex) {
        GiopRequest r = ex.request();
        long interruptions = standing.interruptions();
        if (!open) {   // the listener reads nothing before (FrontEnd.open); a safety net
            throw new TRANSIENT("FTS: replica " + self + " has not activated its objects yet", 0,
                    CompletionStatus.COMPLETED_NO);
        }
        byte[] named = objectId(r.objectKey());
        boolean placed = named != null && References.marked(named);   // a forwarded reference's key
        byte[] oid = named == null ? null : References.unmarked(named);
        boolean known = oid != null && objects.containsKey(new ObjectKey(oid));
        if (known && r.operation().startsWith("_") && BuiltIns.answer(ex, interfaces.apply(oid))) {
            return;   // _is_a, _non_existent, _repository_id: read the interfaces only, answered here, serving or not
        }
        String notServing = standing.notServing();
        if (notServing != null) {   // before the cache: a replica out of the primary may hold stale replies
            throw new TRANSIENT("FTS: replica " + self + " " + notServing, 0, CompletionStatus.COMPLETED_NO);
        }
        if (!known) {
            throw new OBJECT_NOT_EXIST("FTS: no object " + (oid == null ? "with that key" : new ObjectKey(oid))
                    + " in this group", 0, CompletionStatus.COMPLETED_NO);
        }
        String there = placement.place(ex.connection(), r.responseExpected(), placed);
        if (there != null) {   // stage 0: nothing ran here; the client sends it again there
            ex.reply(Giop.LOCATION_FORWARD, List.of(), Jacorb.marshal(orb, placement.reference(oid, there)));
            return;
        }
        if (r.argumentBytes() > maxRequestSize) {
            throw new IMP_LIMIT("FTS: " + r.operation() + " carries " + r.argumentBytes() + " bytes of arguments; "
                    + "fts.request.max_size is " + maxRequestSize, 0, CompletionStatus.COMPLETED_NO);
        }
        FtContexts ft = FtContexts.of(r.contexts());
        long now = cache.clock().estimate();   // the group's time, never this replica's wall clock
        RequestId id;
        long keepUntil;
        if (ft.id() != null) {
            Reply done = cache.peek(ft.id());
            if (done != null) {   // a retry of a request already executed: the same reply
                answer(ex, done, ft, oid);
                return;
            }
            id = ft.id();
            keepUntil = cache.keepUntil(now, System.currentTimeMillis(), ft.expirationMillis());
        } else {
            id = new RequestId(incarnation, counter.incrementAndGet());
            keepUntil = 0;
        }
        boolean read = r.responseExpected() && reads.isRead(oid, r.operation());   // stage 5r: docs/reads.md
        CastPath.Ticket ticket = read ? null : castPath.enter();
        int[] cs = ex.codeSets();
        Request request = new Request(id, self, oid, r.operation(), r.minor(), r.littleEndian(), cs[0], cs[1],
                r.bodyStart() % 8, r.arguments(), r.responseExpected(), now, r.responseExpected() ? keepUntil : 0);
        CompletableFuture<Reply> done = read ? reads.read(request) : castPath.cast(request, ticket);
        if (!r.responseExpected()) {
            return;
        }
        if (!read && standing.interruptions() != interruptions) {   // see Dispatcher.invoke
            castPath.notExecuted(id, new IllegalStateException("replica " + self + " stopped serving while "
                    + r.operation() + " was being cast"));
        }
        if (!done.isDone()) {
            ex.expireAfter(timeoutNanos, () -> {
                castPath.abandon(id, done);
                ex.fail(new TRANSIENT("FTS: " + r.operation() + " was not executed within " + timeoutNanos / 1_000_000
                        + " ms (fts.request.timeout)", 0, CompletionStatus.COMPLETED_MAYBE));
            });
        }
        done.whenComplete((reply, failure) -> {
            if (failure != null) {
                Throwable why = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                ex.fail(new TRANSIENT("FTS: " + why.getMessage(), 0, CompletionStatus.COMPLETED_MAYBE));
            } else {
                answer(ex, reply, ft, oid);
            }
        });
    }

    /** Stage 10: the reply, with the group's version (and loads, and a newer reference) for FT clients. */
    private void answer(Exchange ex, Reply reply, FtContexts ft, byte[] oid) {
        int status = switch (reply.kind()) {
            case NORMAL -> Giop.NO_EXCEPTION;
            case USER_EXCEPTION -> Giop.USER_EXCEPTION;
            case SYSTEM_EXCEPTION -> Giop.SYSTEM_EXCEPTION;
            case NONE -> -1;
        };
        if (status >= 0) {
            ex.reply(status, contexts(ft, oid, ex), reply.body());
        }
    }

    private List<ServiceContext> contexts(FtContexts ft, byte[] oid, Exchange ex) {
        if (ft.clientVersion() < 0) {
            return List.of();
        }
        List<ServiceContext> out = new ArrayList<>(3);
        byte[] loads = placement.loadsFor(ex.connection());
        if (loads != null) {
            out.add(new ServiceContext(FtConstants.FTS_GROUP_LOAD, loads));
        }
        Membership.Snapshot group = membership.current();
        out.add(new ServiceContext(FtConstants.FT_GROUP_VERSION, new FtGroupVersionContext(group.version()).encode()));
        if (ft.clientVersion() < group.version()) {
            out.add(new ServiceContext(FtConstants.FTS_GROUP_REFERENCE, new Cdr.Writer().string(iogr.apply(oid)).bytes()));
        }
        return out;
    }
}
