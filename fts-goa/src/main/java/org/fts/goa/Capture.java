package org.fts.goa;

import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.FtsStreamAccess;
import org.jacorb.orb.dsi.ServerRequest;
import org.jacorb.orb.giop.GIOPConnection;
import org.jacorb.orb.giop.MessageInputStream;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.MARSHAL;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.ResponseHandler;

/**
 * Stage 4 of the request path: takes a request's marshalled arguments out of JacORB's request stream as raw
 * bytes, with everything needed to replay them elsewhere (byte order, GIOP minor, code sets, alignment).
 * JacORB-specific by nature: see design.md §7 for the offsets used.
 */
final class Capture {
    private Capture() {
    }

    /**
     * @throws MARSHAL (COMPLETED_NO) with the reason when the stream is not a JacORB request stream or its
     *                 framing is inconsistent
     */
    static Request capture(RequestId id, String origin, byte[] objectId, String operation, InputStream in,
                           ResponseHandler rh, long timestamp, long keepUntil) {
        if (!(in instanceof CDRInputStream cdr) || !(in instanceof MessageInputStream msg)
                || !(rh instanceof ServerRequest sr)) {
            throw new MARSHAL("FTS cannot capture " + operation + ": not a JacORB GIOP request stream ("
                    + in.getClass().getName() + ")", 0, CompletionStatus.COMPLETED_NO);
        }
        int start = cdr.get_pos();
        int end = 12 + msg.msg_size;   // the GIOP header is 12 bytes; msg_size counts what follows it
        if (end < start && start - end < 8) {
            end = start;   // no arguments: GIOP 1.2 aligns the (empty) body's start past the message's end
        }
        if (start < 12 || end < start) {
            throw new MARSHAL("FTS cannot capture " + operation + ": body [" + start + ", " + end
                    + ") is not inside the message", 0, CompletionStatus.COMPLETED_NO);
        }
        int pad = start % 8;
        byte[] body = new byte[pad + end - start];
        try {
            cdr.read_octet_array(body, pad, end - start);
        } catch (RuntimeException e) {
            throw new MARSHAL("FTS cannot capture " + operation + ": " + e, 0, CompletionStatus.COMPLETED_NO);
        }
        GIOPConnection conn = sr.getConnection();
        int tcs = conn.getTCS() == null ? 0 : conn.getTCS().getId();
        int tcsw = conn.getTCSW() == null ? 0 : conn.getTCSW().getId();
        return new Request(id, origin, objectId, operation, cdr.getGIOPMinor(), FtsStreamAccess.isLittleEndian(cdr),
                tcs, tcsw, pad, body, sr.responseExpected(), timestamp,
                sr.responseExpected() ? keepUntil : 0);
    }
}
