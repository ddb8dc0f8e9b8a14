package org.fts.goa;

import org.fts.goa.intake.Reply;
import org.fts.goa.intake.Request;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;
import org.omg.CORBA.ORB;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.UNKNOWN;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.Servant;

/**
 * Stage 8 of the request path: replays a captured request on this replica's servant and captures what it
 * answers. Deterministic: the same request on the same servant state gives the same {@link Reply} on every
 * replica, exceptions included (a servant's RuntimeException becomes the same UNKNOWN everywhere).
 */
final class Replay {
    private final ORB orb;

    Replay(ORB orb) {
        this.orb = orb;
    }

    Reply execute(Request r, Servant servant) {
        if (servant == null) {
            if (r.operation().equals("_non_existent") && r.responseExpected()) {   // CORBA's answer: it does not exist
                OutputStream out = Jacorb.replyStream(orb, r);
                out.write_boolean(true);
                return new Reply(Reply.Kind.NORMAL, Jacorb.bytes(out));
            }
            return system(r, new OBJECT_NOT_EXIST("no object with this id in the group", 0,
                    CompletionStatus.COMPLETED_NO));
        }
        InputStream in = Jacorb.replayStream(orb, r);
        Handler h = new Handler(r);
        try {
            ((InvokeHandler) servant)._invoke(r.operation(), in, h);
        } catch (SystemException e) {
            return system(r, e);
        } catch (RuntimeException e) {
            return system(r, new UNKNOWN("servant threw " + e.getClass().getName(), 0, CompletionStatus.COMPLETED_MAYBE));
        }
        if (!r.responseExpected()) {
            return Reply.NONE;
        }
        return h.reply();
    }

    /**
     * The answer to a request that executed already but whose reply the cache no longer holds (it expired, or the
     * cache was full: fts.cache.max_entries): it is not executed again. The same at every replica.
     */
    Reply replyEvicted(Request r) {
        return system(r, new IMP_LIMIT("FTS: this request executed, but its reply is no longer kept (a retry "
                + "after its expiration, or fts.cache.max_entries too small for the request rate); it is not executed "
                + "again",
                0, CompletionStatus.COMPLETED_YES));
    }

    Reply replyExpired(Request r) {
        return system(r, new org.omg.CORBA.TIMEOUT("FTS: this request was ordered after its client's retries had "
                + "expired (a copy cast long before); it is not executed", 0, CompletionStatus.COMPLETED_MAYBE));
    }

    /** The reply carrying {@code e}, as {@code r}'s client expects it. */
    Reply system(Request r, SystemException e) {
        OutputStream out = Jacorb.replyStream(orb, r);
        Jacorb.writeSystemException(out, e);
        return new Reply(Reply.Kind.SYSTEM_EXCEPTION, Jacorb.bytes(out));
    }

    /** The servant's response handler: captures the reply instead of sending it. */
    private final class Handler implements ResponseHandler {
        private final Request request;
        private OutputStream out;
        private Reply.Kind kind;

        Handler(Request request) {
            this.request = request;
        }

        @Override
        public OutputStream createReply() {
            kind = Reply.Kind.NORMAL;
            out = Jacorb.replyStream(orb, request);
            return out;
        }

        @Override
        public OutputStream createExceptionReply() {
            kind = Reply.Kind.USER_EXCEPTION;
            out = Jacorb.replyStream(orb, request);
            return out;
        }

        Reply reply() {
            if (out == null) {
                return new Reply(Reply.Kind.NORMAL, new byte[0]);
            }
            return new Reply(kind, Jacorb.bytes(out));
        }
    }
}
