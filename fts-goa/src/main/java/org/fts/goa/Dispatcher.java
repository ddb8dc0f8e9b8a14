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
import org.fts.ft.FtRequestContext;
import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.SystemExceptionHelper;
import org.jacorb.orb.giop.ServiceContextTransportingOutputStream;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.MARSHAL;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.ORB;
import org.omg.CORBA.TRANSIENT;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.IOP.ServiceContext;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;

/**
 * Stages 1-5 and 10, on JacORB's request thread (the paper's foreground pool): the one servant JacORB sees
 * for every object of the group. It identifies and captures each request, casts it, waits for this replica
 * to execute it in the total order, and writes the reply back on the client's connection.
 */
final class Dispatcher extends Servant implements InvokeHandler {
    /** The object id of the request on this thread, set by {@link Locator}. */
    static final ThreadLocal<byte[]> TARGET = new ThreadLocal<>();

    private final ORB orb;
    private final String self;
    private final String incarnation;
    private final AtomicLong counter = new AtomicLong();
    private final Map<ObjectKey, Servant> objects;
    private final ReplicaEngine engine;
    private final long timeoutMillis;
    private final boolean longDoorway;
    private final Membership membership;
    private final Function<byte[], String> iogr;
    private final int maxRequestSize;

    /**
     * @param iogr the object's current group reference, stringified, for clients whose FT_GROUP_VERSION is old
     */
    Dispatcher(ORB orb, String self, Map<ObjectKey, Servant> objects, ReplicaEngine engine, long timeoutMillis,
               boolean longDoorway, Membership membership, Function<byte[], String> iogr, int maxRequestSize) {
        this.maxRequestSize = maxRequestSize;
        this.longDoorway = longDoorway;
        this.membership = membership;
        this.iogr = iogr;
        this.orb = orb;
        this.self = self;
        // Ids made up for plain clients must not repeat across restarts of a replica (the cache would answer
        // a new request with an old reply): each incarnation has its own prefix.
        this.incarnation = self + "/" + UUID.randomUUID();
        this.objects = objects;
        this.engine = engine;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public String[] _all_interfaces(POA poa, byte[] oid) {
        Servant s = objects.get(new ObjectKey(oid));
        return s == null ? new String[0] : s._all_interfaces(poa, oid);
    }

    @Override
    public OutputStream _invoke(String operation, InputStream in, ResponseHandler rh) {
        byte[] oid = TARGET.get();
        if (oid == null || !objects.containsKey(new ObjectKey(oid))) {
            throw new OBJECT_NOT_EXIST("FTS: no object " + (oid == null ? "?" : new ObjectKey(oid))
                    + " in this group", 0, CompletionStatus.COMPLETED_NO);
        }
        refuseOversized(operation, in);
        String notServing = engine.notServing();
        if (notServing != null) {   // before the cache: a replica out of the primary may hold stale replies
            throw new TRANSIENT("FTS: replica " + self + " " + notServing, 0, CompletionStatus.COMPLETED_NO);
        }
        FtContexts ft = FtContexts.of(rh);
        long now = System.currentTimeMillis();
        RequestId id;
        long keepUntil;
        if (ft.id() != null) {   // only an FT client's id can have been seen before
            Reply done0 = engine.cache().peek(ft.id());
            if (done0 != null) {
                return answer(done0, rh, ft, oid);   // a retry of a request already executed: the same reply
            }
            id = ft.id();
            keepUntil = engine.cache().keepUntil(now, ft.expirationMillis());
        } else {
            id = new RequestId(incarnation, counter.incrementAndGet());
            keepUntil = 0;   // nobody can retry it
        }
        if (longDoorway) {
            engine.enter();   // the long doorway: from the request's arrival to its cast
        }
        Request request;
        try {
            request = Capture.capture(id, self, oid, operation, in, rh, now, keepUntil);
        } catch (RuntimeException e) {
            if (longDoorway) {
                engine.leave();
            }
            throw e;
        }
        CompletableFuture<Reply> done = engine.cast(request, longDoorway);
        if (!request.responseExpected()) {
            return null;
        }
        Reply reply;
        try {
            reply = done.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            engine.abandon(id, done);
            throw new TRANSIENT("FTS: " + operation + " was not executed within " + timeoutMillis
                    + " ms (fts.request.timeout)", 0, CompletionStatus.COMPLETED_MAYBE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TRANSIENT("FTS: interrupted waiting for " + operation, 0, CompletionStatus.COMPLETED_MAYBE);
        } catch (ExecutionException e) {
            throw new TRANSIENT("FTS: " + e.getCause().getMessage(), 0, CompletionStatus.COMPLETED_MAYBE);
        }
        return answer(reply, rh, ft, oid);
    }

    /**
     * Stage 1 guard: a request whose marshalled arguments exceed {@code fts.request.max_size} never reaches the
     * group (every replica would hold it, several times over, and one large enough could exhaust their heaps).
     * The client gets IMP_LIMIT, COMPLETED_NO, naming the limit; nothing else happens anywhere.
     */
    private void refuseOversized(String operation, InputStream in) {
        if (in instanceof org.jacorb.orb.giop.MessageInputStream msg && in instanceof CDRInputStream cdr) {
            long size = 12L + msg.msg_size - cdr.get_pos();
            if (size > maxRequestSize) {
                throw new org.omg.CORBA.IMP_LIMIT("FTS: " + operation + " carries " + size + " bytes of arguments; "
                        + "fts.request.max_size is " + maxRequestSize, 0, CompletionStatus.COMPLETED_NO);
            }
        }
    }

    /**
     * Stage 2: what an FT-CORBA client says about the request. FT_REQUEST (client_id, retention_id) is the
     * request's identity, the same across every reinvocation; FT_GROUP_VERSION is the group version the client
     * knows. Malformed contexts are this client's error ({@code MARSHAL}/{@code BAD_PARAM}). Plain clients send
     * neither: they get an id unique to this replica's incarnation.
     *
     * @param id              null for a plain client
     * @param clientVersion   -1 when not sent
     */
    record FtContexts(RequestId id, long expirationMillis, long clientVersion) {
        static final FtContexts NONE = new FtContexts(null, 0, -1);

        static FtContexts of(ResponseHandler rh) {
            if (!(rh instanceof org.jacorb.orb.dsi.ServerRequest sr)) {
                return NONE;
            }
            RequestId id = null;
            long expiration = 0;
            long version = -1;
            for (org.omg.IOP.ServiceContext sc : sr.getServiceContext()) {
                if (sc.context_id == FtConstants.FT_REQUEST) {
                    FtRequestContext ft = FtRequestContext.decode(sc.context_data);
                    id = new RequestId(ft.clientId(), ft.retentionId());
                    expiration = FtRequestContext.epochMillis(ft.expirationTime());
                } else if (sc.context_id == FtConstants.FT_GROUP_VERSION) {
                    version = FtGroupVersionContext.decode(sc.context_data).version();
                }
            }
            return id == null && version < 0 ? NONE : new FtContexts(id, expiration, version);
        }
    }

    /** Stage 10: the cached reply, as JacORB sends it, with the group version for FT clients. */
    private OutputStream answer(Reply reply, ResponseHandler rh, FtContexts ft, byte[] oid) {
        switch (reply.kind()) {
            case NORMAL:
                return copy(reply, withGroupVersion(rh.createReply(), ft, oid));
            case USER_EXCEPTION:
                return copy(reply, withGroupVersion(rh.createExceptionReply(), ft, oid));
            case SYSTEM_EXCEPTION:
                throw SystemExceptionHelper.read(new CDRInputStream(orb, reply.body()));
            default:
                return null;
        }
    }

    /**
     * FT clients learn the group's version on every reply, and the new reference when theirs is older.
     */
    private OutputStream withGroupVersion(OutputStream out, FtContexts ft, byte[] oid) {
        if (ft.clientVersion() < 0 || !(out instanceof ServiceContextTransportingOutputStream reply)) {
            return out;
        }
        Membership.Snapshot group = membership.current();
        reply.addServiceContext(new ServiceContext(FtConstants.FT_GROUP_VERSION,
                new FtGroupVersionContext(group.version()).encode()));
        if (ft.clientVersion() < group.version()) {
            reply.addServiceContext(new ServiceContext(FtConstants.FTS_GROUP_REFERENCE,
                    new Cdr.Writer().string(iogr.apply(oid)).bytes()));
        }
        return out;
    }

    private static OutputStream copy(Reply reply, OutputStream out) {
        // Replies are captured from an 8-aligned start; GIOP 1.2 reply bodies start 8-aligned too.
        if (out instanceof CDROutputStream cdr && cdr.size() % 8 != 0) {
            throw new MARSHAL("FTS: reply body starts at offset " + cdr.size()
                    + ", not 8-aligned; use GIOP 1.2 (corbaloc::1.2@host:port)", 0, CompletionStatus.COMPLETED_YES);
        }
        out.write_octet_array(reply.body(), 0, reply.body().length);
        return out;
    }
}
