package org.fts.goa;

import org.fts.goa.intake.Encoding;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;

/**
 * The GOA's point-to-point messages between replicas ({@code GroupChannel.send}), one type tag first: for state
 * transfer a {@link Chunk} of a snapshot or a provider's {@link Refused}; at start, a replica's {@link Settings}.
 */
sealed interface Direct permits Direct.Chunk, Direct.Refused, Direct.Settings {

    /** The attempt ({@link Cast.StateMarker#nonce()}) this message answers; empty for {@link Settings}. */
    String nonce();

    /** Piece {@code index} of {@code total} of the snapshot for attempt {@code nonce}. */
    record Chunk(String nonce, int index, int total, byte[] data) implements Direct {
    }

    /** The provider named by attempt {@code nonce} cannot give its state, and why. */
    record Refused(String nonce, String reason) implements Direct {
    }

    /** The sender's {@link AgreedSettings}, encoded: they differ from the receiver's ({@link SettingsCheck}). */
    record Settings(String values) implements Direct {
        @Override
        public String nonce() {
            return "";
        }
    }

    byte CHUNK = 2;
    byte REFUSED = 3;
    byte SETTINGS = 4;

    static byte[] settings(String values) {
        return Encoding.bytes(64 + values.length(), out -> {
            out.writeByte(SETTINGS);
            out.writeUTF(values.length() > 8000 ? values.substring(0, 8000) : values);
        });
    }

    static byte[] chunk(String nonce, int index, int total, byte[] data, int off, int len) {
        return Encoding.bytes(32 + len, out -> {
            out.writeByte(CHUNK);
            out.writeUTF(nonce);
            out.writeInt(index);
            out.writeInt(total);
            out.writeInt(len);
            out.write(data, off, len);
        });
    }

    static byte[] refused(String nonce, String reason) {
        return Encoding.bytes(64, out -> {
            out.writeByte(REFUSED);
            out.writeUTF(nonce);
            out.writeUTF(reason.length() > 2000 ? reason.substring(0, 2000) : reason);
        });
    }

    /** Parses a message; {@link IllegalArgumentException} if it is not one. */
    static Direct read(byte[] msg) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(msg));
            byte type = in.readByte();
            if (type == CHUNK) {
                String nonce = in.readUTF();
                int index = in.readInt();
                int total = in.readInt();
                int len = in.readInt();
                if (len < 0 || len > msg.length || index < 0 || index >= total) {
                    throw new IllegalArgumentException("bad chunk " + index + "/" + total + " of " + len + " bytes");
                }
                byte[] data = new byte[len];
                in.readFully(data);
                return new Chunk(nonce, index, total, data);
            }
            if (type == REFUSED) {
                return new Refused(in.readUTF(), in.readUTF());
            }
            if (type == SETTINGS) {
                return new Settings(in.readUTF());
            }
            throw new IllegalArgumentException("unknown message type " + type);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated message: " + e.getMessage());
        }
    }
}
