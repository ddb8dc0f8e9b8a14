package org.fts.goa.frontend;

import java.util.ArrayList;
import java.util.List;

import org.omg.IOP.ServiceContext;

/**
 * GIOP 1.0-1.2 as the front end speaks it: reads Request and LocateRequest headers, writes Reply, LocateReply,
 * MessageError and CloseConnection messages. Replies are big-endian, as JacORB marshals the bodies FTS caches, and
 * every body starts 8-aligned in the message, as those bodies were captured: GIOP 1.2 aligns it; for 1.0 and 1.1 a
 * padding service context ({@link #PADDING_CONTEXT}) makes the header end 8-aligned.
 */
public final class Giop {
    public static final int REQUEST = 0;
    public static final int REPLY = 1;
    public static final int CANCEL_REQUEST = 2;
    public static final int LOCATE_REQUEST = 3;
    public static final int LOCATE_REPLY = 4;
    public static final int CLOSE_CONNECTION = 5;
    public static final int MESSAGE_ERROR = 6;
    public static final int FRAGMENT = 7;

    public static final int NO_EXCEPTION = 0;
    public static final int USER_EXCEPTION = 1;
    public static final int SYSTEM_EXCEPTION = 2;
    public static final int LOCATION_FORWARD = 3;
    public static final int NEEDS_ADDRESSING_MODE = 5;

    public static final int UNKNOWN_OBJECT = 0;
    public static final int OBJECT_HERE = 1;

    /** CONV_FRAME::CodeSets: the client's transmission code sets. */
    public static final int CODE_SETS = 1;
    /** A vendor context of FTS's ("FTS" 0x00): four zero bytes that align a GIOP 1.0/1.1 reply body; ignored by ORBs. */
    public static final int PADDING_CONTEXT = 0x46545300;

    private Giop() {
    }

    /** The header of a Request message; {@link GiopException} if it is malformed. */
    public static GiopRequest request(byte[] m) {
        int minor = m[5];
        boolean little = (m[6] & 1) != 0;
        GiopIn in = new GiopIn(m, 12, m.length, little);
        if (minor <= 1) {
            List<ServiceContext> contexts = contexts(in);
            int id = in.ulong();
            boolean expected = in.octet() != 0;
            if (minor == 1) {
                in.skip(3);
            }
            byte[] key = in.octets();
            String op = in.string();
            in.octets();   // requesting_principal
            return new GiopRequest(minor, little, id, expected, key, op, contexts, m, in.pos(), m.length);
        }
        int id = in.ulong();
        int flags = in.octet();
        in.skip(3);
        byte[] key = target(in);
        if (key == null) {
            return new GiopRequest(minor, little, id, (flags & 1) != 0, null, "", List.of(), m, m.length, m.length);
        }
        String op = in.string();
        List<ServiceContext> contexts = contexts(in);
        int start = (in.pos() + 7) & -8;   // a GIOP 1.2 body starts 8-aligned: past the end when there is none
        return new GiopRequest(minor, little, id, (flags & 1) != 0, key, op, contexts, m, Math.min(start, m.length),
                m.length);
    }

    /** A LocateRequest's id and object key (null: not addressed by key), as {id, key}. */
    public static Object[] locate(byte[] m) {
        GiopIn in = new GiopIn(m, 12, m.length, (m[6] & 1) != 0);
        int id = in.ulong();
        return new Object[] {id, m[5] <= 1 ? in.octets() : target(in)};
    }

    /** A GIOP 1.2 TargetAddress: the object key, or null for the other dispositions. */
    private static byte[] target(GiopIn in) {
        int disposition = in.ushort();
        return disposition == 0 ? in.octets() : null;
    }

    private static List<ServiceContext> contexts(GiopIn in) {
        int n = in.ulong();
        if (n < 0 || n > 1024) {
            throw new GiopException(n + " service contexts (at most 1024 are read)");
        }
        List<ServiceContext> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int id = in.ulong();
            out.add(new ServiceContext(id, in.octets()));
        }
        return out;
    }

    /** The char and wchar code sets of a CodeSets context, as {tcs, tcsw}; null if malformed. */
    public static int[] codeSets(byte[] data) {
        try {
            GiopIn in = new GiopIn(data, 0, data.length, data.length > 0 && (data[0] & 1) != 0);
            in.octet();
            return new int[] {in.ulong(), in.ulong()};
        } catch (GiopException e) {
            return null;
        }
    }

    /**
     * A Reply with {@code status}, the contexts, and a body copied from {@code body} (captured from an 8-aligned
     * origin), 8-aligned in the message.
     */
    public static byte[] reply(int minor, int requestId, int status, List<ServiceContext> contexts, byte[] body) {
        int ctx = 0;
        for (ServiceContext sc : contexts) {
            ctx += 8 + ((sc.context_data.length + 3) & -4);
        }
        GiopOut o = new GiopOut(minor, REPLY, 40 + ctx + body.length);
        if (minor >= 2) {
            o.ulong(requestId).ulong(status);
            writeContexts(o, contexts, false);
            if (body.length > 0) {
                o.align(8);
            }
        } else {
            // the contexts start at 16 (after their count) and the reply's two longs follow them
            writeContexts(o, contexts, body.length > 0 && (16 + ctx) % 8 != 0);
            o.ulong(requestId).ulong(status);
        }
        return o.raw(body, 0, body.length).finish();
    }

    private static void writeContexts(GiopOut o, List<ServiceContext> contexts, boolean pad) {
        o.ulong(contexts.size() + (pad ? 1 : 0));
        for (ServiceContext sc : contexts) {
            o.ulong(sc.context_id).octets(sc.context_data);
            o.align(4);
        }
        if (pad) {
            o.ulong(PADDING_CONTEXT).octets(new byte[4]);
        }
    }

    /** A system exception's reply body, as CORBA marshals it (from an 8-aligned origin). */
    public static byte[] systemExceptionBody(String repositoryId, int minorCode, int completed) {
        GiopOut o = new GiopOut(0, 0, 64 + repositoryId.length());
        o.ulong(0);   // 12 + 4: the body below starts at 16, 8-aligned as its origin
        byte[] all = o.string(repositoryId).ulong(minorCode).ulong(completed).finish();
        return java.util.Arrays.copyOfRange(all, 16, all.length);
    }

    /** A LocateReply with {@code status} (no body: OBJECT_HERE, UNKNOWN_OBJECT). */
    public static byte[] locateReply(int minor, int requestId, int status) {
        return new GiopOut(minor, LOCATE_REPLY, 24).ulong(requestId).ulong(status).finish();
    }

    /** A MessageError or CloseConnection: a bare header. */
    public static byte[] bare(int minor, int type) {
        return new GiopOut(minor, type, 12).finish();
    }

    /** A request's single string argument (a built-in operation's), read in the request's byte order. */
    public static String stringArgument(GiopRequest r) {
        return new GiopIn(r.message(), r.bodyStart(), r.bodyEnd(), r.littleEndian()).string();
    }

    /** A string as a reply body (from an 8-aligned origin). */
    public static byte[] stringBody(String s) {
        byte[] all = new GiopOut(0, 0, 32 + s.length()).ulong(0).string(s).finish();
        return java.util.Arrays.copyOfRange(all, 16, all.length);
    }
}
