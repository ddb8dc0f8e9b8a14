package org.fts.goa;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The GOA's point-to-point messages between replicas ({@code GroupChannel.send}), one type byte first:
 * {@code CHUNK} (a piece of a state transfer), {@code REFUSED} (a named provider cannot give its state, and
 * why).
 */
final class Direct {
    static final byte CHUNK = 2;
    static final byte REFUSED = 3;

    /** One decoded message; unused fields are zero or null. */
    record Message(byte type, long seq, String nonce, int index, int total, byte[] data, String reason) {
    }

    private Direct() {
    }

    static byte[] chunk(String nonce, int index, int total, byte[] data, int off, int len) {
        return write(out -> {
            out.writeByte(CHUNK);
            out.writeUTF(nonce);
            out.writeInt(index);
            out.writeInt(total);
            out.writeInt(len);
            out.write(data, off, len);
        });
    }

    static byte[] refused(String nonce, String reason) {
        return write(out -> {
            out.writeByte(REFUSED);
            out.writeUTF(nonce);
            out.writeUTF(reason.length() > 2000 ? reason.substring(0, 2000) : reason);
        });
    }

    /** Parses a message; {@link IllegalArgumentException} if it is not one. */
    static Message read(byte[] msg) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(msg));
            byte type = in.readByte();
            switch (type) {
                case CHUNK: {
                    String nonce = in.readUTF();
                    int index = in.readInt();
                    int total = in.readInt();
                    int len = in.readInt();
                    if (len < 0 || len > msg.length || index < 0 || index >= total) {
                        throw new IllegalArgumentException("bad chunk " + index + "/" + total + " of " + len + " bytes");
                    }
                    byte[] data = new byte[len];
                    in.readFully(data);
                    return new Message(type, 0, nonce, index, total, data, null);
                }
                case REFUSED:
                    return new Message(type, 0, in.readUTF(), 0, 0, null, in.readUTF());
                default:
                    throw new IllegalArgumentException("unknown message type " + type);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated message: " + e.getMessage());
        }
    }

    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Body body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
            DataOutputStream out = new DataOutputStream(bytes);
            body.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);   // a byte array stream does not fail
        }
    }
}
