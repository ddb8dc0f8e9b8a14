package org.fts.goa;

import org.fts.goa.intake.FtContexts;
import org.fts.goa.intake.Reply;
import org.fts.goa.intake.Request;
import org.fts.goa.intake.RequestId;
import org.fts.goa.intake.CastPath;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.Placement;
import org.fts.goa.intake.References;
import org.fts.goa.intake.RequestIntake;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.fts.goa.frontend.Exchange;
import org.fts.goa.frontend.Giop;
import org.fts.goa.frontend.GiopRequest;
import org.fts.goa.frontend.GroupRequests;
import org.omg.CORBA.CompletionStatus;
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
    private final Map<ObjectKey, Servant> objects;
    private final CastPath castPath;
    private final long timeoutNanos;
    private final String poaName;
    /** Object keys seen, and the ids of the group's objects they name. */
    private final Map<ByteBuffer, byte[]> keys = new ConcurrentHashMap<>();
    private final Function<byte[], String[]> interfaces;
    private final RequestIntake intake;
    private volatile boolean open;

    FrontDispatch(ORB orb, GoaConfig config, Map<ObjectKey, Servant> objects, ReplicaEngine engine,
                  Membership membership, Function<byte[], String> iogr, String poaName,
                  Function<byte[], String[]> interfaces, ReadPath reads) {
        this.interfaces = interfaces;
        this.orb = orb;
        this.self = config.replicaId();
        this.objects = objects;
        this.castPath = engine.castPath();
        this.timeoutNanos = config.requestTimeout().toNanos();
        this.poaName = poaName;
        this.intake = new RequestIntake(config.replicaId(), config.maxRequestSize(), objects, engine.standing(),
                engine.cache(), engine.castPath(), membership, iogr, null, reads, engine.outcomes());
    }

    /** The POA manager was activated: the objects are there, requests are taken. */
    void open(Placement p) {
        intake.place(p);
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
        // Any id of the group's POA: an object a request created may exist in the group before this replica executed
        // that request (a LocateRequest's answer is a hint; the request itself is ordered and answered alike).
        return objectId(objectKey) != null;
    }

    private byte[] objectId(byte[] objectKey) {
        ByteBuffer k = ByteBuffer.wrap(objectKey);
        byte[] oid = keys.get(k);
        if (oid == null) {
            oid = Jacorb.objectId(objectKey, poaName);
            if (oid != null && objects.containsKey(new ObjectKey(References.unmarked(oid)))) {
                if (keys.size() > 2 * objects.size() + 1024) {
                    keys.clear();   // keys of objects destroyed since: parsed again on demand
                }
                keys.put(k, oid);
            }
        }
        return oid;
    }

    @Override
    public void request(Exchange ex) {
        GiopRequest r = ex.request();
        if (!open) {   // the listener reads nothing before (FrontEnd.open); a safety net
            throw new TRANSIENT("FTS: replica " + self + " has not activated its objects yet", 0,
                    CompletionStatus.COMPLETED_NO);
        }
        byte[] named = objectId(r.objectKey());
        byte[] oid = named == null ? null : References.unmarked(named);
        if (intake.knows(oid) && r.operation().startsWith("_") && BuiltIns.answer(ex, interfaces.apply(oid))) {
            return;   // _is_a, _non_existent, _repository_id: read the interfaces only, answered here, serving or not
        }
        RequestIntake.Outcome outcome = intake.admit(named, new RequestIntake.Incoming() {
            @Override
            public String operation() {
                return r.operation();
            }

            @Override
            public boolean responseExpected() {
                return r.responseExpected();
            }

            @Override
            public long argumentBytes() {
                return r.argumentBytes();
            }

            @Override
            public FtContexts ft() {
                return FtContexts.of(r.contexts());
            }

            @Override
            public Object connection() {
                return ex.connection();
            }

            @Override
            public Request capture(RequestId id, byte[] target, long now, long keepUntil) {
                int[] cs = ex.codeSets();
                return new Request(id, self, target, r.operation(), r.minor(), r.littleEndian(), cs[0], cs[1],
                        r.bodyStart() % 8, r.arguments(), r.responseExpected(), now,
                        r.responseExpected() ? keepUntil : 0);
            }
        });
        if (outcome instanceof RequestIntake.Forward f) {   // stage 0: the client sends it again there
            ex.reply(Giop.LOCATION_FORWARD, List.of(), Jacorb.marshal(orb, f.reference()));
        } else if (outcome instanceof RequestIntake.Cached c) {
            answer(ex, c.reply(), c.ft(), c.oid());
        } else if (outcome instanceof RequestIntake.Read x) {
            reply(ex, r.operation(), x.id(), x.done(), x.ft(), x.oid());
        } else if (outcome instanceof RequestIntake.Cast x) {
            reply(ex, r.operation(), x.id(), x.done(), x.ft(), x.oid());
        }   // a oneway: nothing to answer
    }

    /** Nothing waits: the execution completes the exchange, or the request's timeout fails it. */
    private void reply(Exchange ex, String operation, RequestId id, CompletableFuture<Reply> done, FtContexts ft,
                       byte[] oid) {
        if (!done.isDone()) {
            ex.expireAfter(timeoutNanos, () -> {
                intake.abandon(id, done);
                ex.fail(new TRANSIENT("FTS: " + operation + " was not executed within " + timeoutNanos / 1_000_000
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
            ex.reply(status, intake.replyContexts(ft, oid, ex.connection()), reply.body());
        }
    }
}
