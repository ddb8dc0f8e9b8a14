package org.fts.goa;

import org.fts.goa.intake.Reply;
import org.fts.goa.intake.FtContexts;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.Placement;
import org.fts.goa.intake.Request;
import org.fts.goa.intake.RequestId;
import org.fts.goa.intake.RequestIntake;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.MARSHAL;
import org.omg.CORBA.ORB;
import org.omg.CORBA.TRANSIENT;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.IOP.ServiceContext;
import org.omg.PortableServer.Servant;

/**
 * JacORB's listener, on its request thread (the paper's foreground pool): every request to the group's objects goes
 * through the {@link RequestIntake} (stages 0-5), then this thread waits for this replica to execute it in the total
 * order and writes the reply (stage 10) as JacORB sends it.
 */
final class Dispatcher {
    private final ORB orb;
    private final RequestIntake intake;
    private final long timeoutMillis;

    Dispatcher(ORB orb, GoaConfig config, Map<ObjectKey, Servant> objects, ReplicaEngine engine,
               Membership membership, Function<byte[], String> iogr, Placement placement, ReadPath reads) {
        this.orb = orb;
        this.intake = new RequestIntake(config.replicaId(), config.maxRequestSize(), objects, engine.standing(),
                engine.cache(), engine.castPath(), membership, iogr, placement, reads, engine.outcomes());
        this.timeoutMillis = config.requestTimeout().toMillis();
    }

    OutputStream invoke(byte[] named, String operation, InputStream in, ResponseHandler rh) {
        boolean responseExpected = Jacorb.responseExpected(rh);
        Object connection = Jacorb.connection(rh);
        RequestIntake.Outcome outcome = intake.admit(named, new RequestIntake.Incoming() {
            @Override
            public String operation() {
                return operation;
            }

            @Override
            public boolean responseExpected() {
                return responseExpected;
            }

            @Override
            public long argumentBytes() {
                return Jacorb.argumentBytes(in);
            }

            @Override
            public FtContexts ft() {
                return FtContexts.of(Jacorb.serviceContexts(rh));
            }

            @Override
            public Object connection() {
                return connection;
            }

            @Override
            public Request capture(RequestId id, byte[] oid, long now, long keepUntil) {
                return Capture.capture(id, intake.self(), oid, operation, in, rh, now, keepUntil);
            }
        });
        if (outcome instanceof RequestIntake.Forward f) {
            Jacorb.forward(rh, f.reference());
            return null;
        } else if (outcome instanceof RequestIntake.Cached c) {
            return answer(c.reply(), rh, c.ft(), c.oid(), connection);
        } else if (outcome instanceof RequestIntake.Read r) {
            return answer(await(r.done(), r.id(), operation), rh, r.ft(), r.oid(), connection);
        } else if (outcome instanceof RequestIntake.Cast c) {
            return answer(await(c.done(), c.id(), operation), rh, c.ft(), c.oid(), connection);
        }
        return null;   // a oneway: nothing to answer
    }

    private Reply await(CompletableFuture<Reply> done, RequestId id, String operation) {
        try {
            return done.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            intake.abandon(id, done);
            throw new TRANSIENT("FTS: " + operation + " was not executed within " + timeoutMillis
                    + " ms (fts.request.timeout)", 0, CompletionStatus.COMPLETED_MAYBE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TRANSIENT("FTS: interrupted waiting for " + operation, 0, CompletionStatus.COMPLETED_MAYBE);
        } catch (ExecutionException e) {
            throw new TRANSIENT("FTS: " + e.getCause().getMessage(), 0, CompletionStatus.COMPLETED_MAYBE);
        }
    }

    /** Stage 10: the reply, as this replica's JacORB sends it, with the group's contexts for FT clients. */
    private OutputStream answer(Reply reply, ResponseHandler rh, FtContexts ft, byte[] oid, Object connection) {
        switch (reply.kind()) {
            case NORMAL:
                return copy(reply, withContexts(rh.createReply(), ft, oid, connection));
            case USER_EXCEPTION:
                return copy(reply, withContexts(rh.createExceptionReply(), ft, oid, connection));
            case SYSTEM_EXCEPTION:
                throw Jacorb.readSystemException(orb, reply.body());
            default:
                return null;
        }
    }

    private OutputStream withContexts(OutputStream out, FtContexts ft, byte[] oid, Object connection) {
        for (ServiceContext c : intake.replyContexts(ft, oid, connection)) {
            Jacorb.addServiceContext(out, c);
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
