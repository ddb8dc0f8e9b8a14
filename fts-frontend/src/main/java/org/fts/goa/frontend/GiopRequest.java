package org.fts.goa.frontend;

import java.util.List;

import org.omg.IOP.ServiceContext;

/**
 * A GIOP Request as the front end read it: its header's fields, and where its marshalled arguments lie in the
 * message (alignment counts from the message's first byte, so {@code bodyStart % 8} is the arguments' alignment).
 *
 * @param objectKey null when the target is not addressed by its key (GIOP 1.2 ProfileAddr, ReferenceAddr): the
 *                  client is asked for the key (NEEDS_ADDRESSING_MODE)
 */
public record GiopRequest(int minor, boolean littleEndian, int requestId, boolean responseExpected, byte[] objectKey,
                          String operation, List<ServiceContext> contexts, byte[] message, int bodyStart,
                          int bodyEnd) {
    /** The arguments, copied from an 8-aligned origin: {@code bodyStart % 8} zero bytes, then the arguments. */
    public byte[] arguments() {
        int pad = bodyStart % 8;
        byte[] out = new byte[pad + bodyEnd - bodyStart];
        System.arraycopy(message, bodyStart, out, pad, bodyEnd - bodyStart);
        return out;
    }

    /** How many bytes of arguments the request carries. */
    public int argumentBytes() {
        return bodyEnd - bodyStart;
    }
}
