package org.fts.goa.intake;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;

/**
 * One client request as captured by the replica that received it, and as broadcast to every replica: enough
 * to replay the exact marshalled call on each replica's servant.
 *
 * @param id              identity for the reply cache
 * @param origin          the replica holding the client's connection (it answers)
 * @param objectId        the target object's id
 * @param operation       the operation name
 * @param giopMinor       GIOP minor version of the request (1.0, 1.1, 1.2)
 * @param littleEndian    byte order of the body
 * @param tcs             negotiated char code set
 * @param tcsw            negotiated wchar code set
 * @param pad             alignment of the body's first byte within the GIOP message (start % 8)
 * @param body            the marshalled arguments
 * @param responseExpected false for oneway operations
 * @param timestamp       the origin's estimate of the group's time when it captured the request ({@link GroupClock},
 *                        ms; no wall clock); the same at every replica, so decisions taken on it (reply-cache
 *                        expiry) are the same everywhere
 * @param keepUntil       until when (group time, ms) the reply must stay cached for retries; 0 when no
 *                        retry can name this request (a plain client's request: its id was made up)
 */
public record Request(RequestId id, String origin, byte[] objectId, String operation, int giopMinor,
                      boolean littleEndian, int tcs, int tcsw, int pad, byte[] body, boolean responseExpected,
                      long timestamp, long keepUntil) {
    /** The wire form, after {@code tag} (a {@link Cast}'s type). */
    byte[] encode(byte tag) {
        return Encoding.bytes(64 + body.length + operation.length(), out -> {
            out.writeByte(tag);
            out.writeUTF(id.clientId());
            out.writeLong(id.retentionId());
            out.writeUTF(origin);
            out.writeShort(objectId.length);
            out.write(objectId);
            out.writeUTF(operation);
            out.writeByte(giopMinor);
            out.writeByte((littleEndian ? 1 : 0) | (responseExpected ? 2 : 0));
            out.writeInt(tcs);
            out.writeInt(tcsw);
            out.writeByte(pad);
            out.writeLong(timestamp);
            out.writeLong(keepUntil);
            out.writeInt(body.length);
            out.write(body);
        });
    }

    /** Parses the wire form from {@code offset}; {@link IllegalArgumentException} if it is not one. */
    static Request decode(byte[] data, int offset) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data, offset, data.length - offset));
            RequestId id = new RequestId(in.readUTF(), in.readLong());
            String origin = in.readUTF();
            byte[] oid = new byte[in.readUnsignedShort()];
            in.readFully(oid);
            String op = in.readUTF();
            int minor = in.readByte();
            int flags = in.readByte();
            int tcs = in.readInt();
            int tcsw = in.readInt();
            int pad = in.readByte();
            long timestamp = in.readLong();
            long keepUntil = in.readLong();
            int len = in.readInt();
            if (len < 0 || len > data.length) {
                throw new IllegalArgumentException("body length " + len + " exceeds the message");
            }
            byte[] body = new byte[len];
            in.readFully(body);
            if (in.available() != 0) {
                throw new IllegalArgumentException(in.available() + " bytes after the request");
            }
            return new Request(id, origin, oid, op, minor, (flags & 1) != 0, tcs, tcsw, pad, body, (flags & 2) != 0,
                    timestamp, keepUntil);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated request: " + e.getMessage());
        }
    }
}
