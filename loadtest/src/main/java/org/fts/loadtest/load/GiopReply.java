package org.fts.loadtest.load;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads GIOP messages a server sends back, straight from a connection's read buffer: framing (the 12-byte
 * header and its size), and of a GIOP 1.2 {@code Reply} its request id and reply status. Nothing else of the
 * reply is decoded: the driver needs to know which call ended and whether it ended well.
 */
final class GiopReply {
    static final int HEADER = 12;
    static final int REQUEST = 0;
    static final int REPLY = 1;
    static final int CLOSE_CONNECTION = 5;
    static final int MESSAGE_ERROR = 6;
    static final int FRAGMENT = 7;
    /** {@code ReplyStatusType}: the call completed normally. */
    static final int NO_EXCEPTION = 0;

    private GiopReply() {
    }

    /**
     * The whole message's length (header included) starting at {@code at}, or -1 while its header is not all
     * there. {@link IllegalStateException} when the bytes are not a GIOP header: the connection's framing is
     * lost, nothing after it can be trusted.
     */
    static int frameLength(ByteBuffer buf, int at, int limit) {
        if (limit - at < HEADER) {
            return -1;
        }
        if (buf.get(at) != 'G' || buf.get(at + 1) != 'I' || buf.get(at + 2) != 'O' || buf.get(at + 3) != 'P') {
            throw new IllegalStateException("not a GIOP message (framing lost)");
        }
        long size = Integer.toUnsignedLong(order(buf, at).getInt(at + 8));
        if (size > Integer.MAX_VALUE - HEADER) {
            throw new IllegalStateException("a GIOP message of " + size + " bytes");
        }
        return HEADER + (int) size;
    }

    /** The GIOP message type of the message at {@code at}. */
    static int type(ByteBuffer buf, int at) {
        return buf.get(at + 7) & 0xff;
    }

    /** Whether the message at {@code at} is GIOP 1.2, the only version this driver sends. */
    static boolean isGiop12(ByteBuffer buf, int at) {
        return buf.get(at + 4) == 1 && buf.get(at + 5) == 2;
    }

    /** A GIOP 1.2 reply's request id (the first field after the header). */
    static int requestId(ByteBuffer buf, int at) {
        return order(buf, at).getInt(at + HEADER);
    }

    /** A GIOP 1.2 reply's status (after the request id). */
    static int status(ByteBuffer buf, int at) {
        return order(buf, at).getInt(at + HEADER + 4);
    }

    /** {@code ReplyStatusType}: the client is to send the request again to the reference the reply carries. */
    static final int LOCATION_FORWARD = 3;

    /** Where a LOCATION_FORWARD reply sends the client: its reference's first IIOP profile. */
    record Forward(String host, int port, byte[] objectKey) {
    }

    /**
     * The first IIOP profile of the reference in the LOCATION_FORWARD reply at {@code at} (GIOP 1.2: service
     * contexts, then the body 8-aligned from the message's start). {@link IllegalStateException} if it has none.
     */
    static Forward forward(ByteBuffer buf, int at) {
        ByteBuffer b = order(buf, at).duplicate().order(buf.order());
        int[] pos = {at + HEADER + 8};
        long contexts = ulong(b, at, pos);
        for (long i = 0; i < contexts; i++) {
            ulong(b, at, pos);
            int length = (int) ulong(b, at, pos);   // read first: it moves pos
            pos[0] += length;
        }
        pos[0] = at + align(pos[0] - at, 8);
        int typeId = (int) ulong(b, at, pos);   // the type id's length, with its NUL
        pos[0] += typeId;
        long profiles = ulong(b, at, pos);
        for (long i = 0; i < profiles; i++) {
            long tag = ulong(b, at, pos);
            byte[] data = new byte[(int) ulong(b, at, pos)];
            b.get(pos[0], data);
            pos[0] += data.length;
            if (tag == org.fts.ft.Ior.TAG_INTERNET_IOP) {
                org.fts.ft.Ior.Iiop p = org.fts.ft.Ior.Iiop.decode(data);
                return new Forward(p.host(), p.port(), p.objectKey());
            }
        }
        throw new IllegalStateException("a LOCATION_FORWARD to a reference without an IIOP profile");
    }

    private static long ulong(ByteBuffer b, int at, int[] pos) {
        pos[0] = at + align(pos[0] - at, 4);
        long v = Integer.toUnsignedLong(b.getInt(pos[0]));
        pos[0] += 4;
        return v;
    }

    private static int align(int offset, int n) {
        return (offset + n - 1) / n * n;
    }

    /** Sets the buffer's byte order to the message's (flags bit 0: little-endian) and returns it. */
    private static ByteBuffer order(ByteBuffer buf, int at) {
        return buf.order((buf.get(at + 6) & 1) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
    }
}
