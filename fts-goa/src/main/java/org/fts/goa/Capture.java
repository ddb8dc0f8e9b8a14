package org.fts.goa;

import org.fts.goa.intake.Request;
import org.fts.goa.intake.RequestId;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.ResponseHandler;

/**
 * Stage 4 of the request path: takes a request's marshalled arguments as raw bytes, with everything needed to
 * replay them on every replica (byte order, GIOP minor, code sets, alignment), and stamps it with its
 * identity and the receiving replica's clock.
 */
final class Capture {
    private Capture() {
    }

    /**
     * @throws org.omg.CORBA.MARSHAL (COMPLETED_NO) with the reason when the arguments cannot be taken out
     */
    static Request capture(RequestId id, String origin, byte[] objectId, String operation, InputStream in,
                           ResponseHandler rh, long timestamp, long keepUntil) {
        Jacorb.Arguments a = Jacorb.arguments(operation, in, rh);
        return new Request(id, origin, objectId, operation, a.giopMinor(), a.littleEndian(), a.tcs(), a.tcsw(),
                a.pad(), a.body(), a.responseExpected(), timestamp, a.responseExpected() ? keepUntil : 0);
    }
}
