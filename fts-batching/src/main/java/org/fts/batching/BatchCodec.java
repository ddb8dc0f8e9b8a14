package org.fts.batching;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The batch wire format, Totem's "refined" packing: one header per batch, then per message only a varint
 * length and its bytes.
 *
 * <pre>
 *   batch   := MAGIC(0xB7) VERSION(1) varint(count) message{count}
 *   message := varint(length) byte{length}
 * </pre>
 *
 * The decoder is all-or-nothing: a malformed batch (bad magic or version, a count or length that does not
 * fit, bytes left over) is rejected whole with an {@link IllegalArgumentException} saying what is wrong;
 * nothing of it is returned.
 */
public final class BatchCodec {
    static final int MAGIC = 0xB7;
    static final int VERSION = 1;

    private BatchCodec() {
    }

    public static byte[] encode(List<byte[]> messages) {
        int size = 2 + 5;
        for (byte[] m : messages) {
            size += 5 + m.length;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(size);
        out.write(MAGIC);
        out.write(VERSION);
        varint(out, messages.size());
        for (byte[] m : messages) {
            varint(out, m.length);
            out.writeBytes(m);
        }
        return out.toByteArray();
    }

    public static List<byte[]> decode(byte[] batch) {
        return decode(batch, 0);
    }

    /** Decodes the batch that starts at {@code offset} and runs to the end of {@code batch}. */
    public static List<byte[]> decode(byte[] batch, int offset) {
        if (offset < 0 || batch.length - offset < 3 || (batch[offset] & 0xff) != MAGIC) {
            throw new IllegalArgumentException("malformed batch: no batch header");
        }
        if (batch[offset + 1] != VERSION) {
            throw new IllegalArgumentException("malformed batch: version " + batch[offset + 1] + ", expected " + VERSION);
        }
        int[] pos = {offset + 2};
        long count = readVarint(batch, pos, "count");
        if (count > batch.length - pos[0]) {
            throw new IllegalArgumentException("malformed batch: " + count + " messages cannot fit in "
                    + (batch.length - pos[0]) + " bytes");
        }
        List<byte[]> out = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            long len = readVarint(batch, pos, "length of message " + i);
            if (len > batch.length - pos[0]) {
                throw new IllegalArgumentException("malformed batch: message " + i + " claims " + len
                        + " bytes, " + (batch.length - pos[0]) + " remain");
            }
            byte[] m = new byte[(int) len];
            System.arraycopy(batch, pos[0], m, 0, (int) len);
            pos[0] += (int) len;
            out.add(m);
        }
        if (pos[0] != batch.length) {
            throw new IllegalArgumentException("malformed batch: " + (batch.length - pos[0]) + " bytes after the last message");
        }
        return out;
    }

    private static void varint(ByteArrayOutputStream out, int value) {
        int v = value;
        while ((v & ~0x7f) != 0) {
            out.write((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    private static long readVarint(byte[] b, int[] pos, String what) {
        long v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos[0] >= b.length) {
                throw new IllegalArgumentException("malformed batch: ends inside the " + what);
            }
            int x = b[pos[0]++] & 0xff;
            v |= (long) (x & 0x7f) << shift;
            if ((x & 0x80) == 0) {
                if (v > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("malformed batch: " + what + " " + v + " too large");
                }
                return v;
            }
        }
        throw new IllegalArgumentException("malformed batch: " + what + " is not a varint");
    }
}
