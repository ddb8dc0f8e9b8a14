package org.fts.batching;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The batch wire format, Totem's "refined" packing: one header per batch, then per message only a varint
 * length and its bytes.
 *
 * <pre>
 *   batch   := MAGIC(0xB7) VERSION varint(count) message{count} [crc]
 *   message := varint(length) byte{length}
 *   crc     := CRC-32C of every byte before it, big-endian                    (wire version 2 on)
 * </pre>
 *
 * VERSION is the group's wire version the sender spoke ({@code org.fts.gc.WireVersion}, docs/upgrades.md): version 1
 * is the format above without the checksum; version 2 adds it. The decoder is all-or-nothing: a malformed batch (bad
 * magic, a count or length that does not fit, bytes left over, a checksum that does not match) is rejected whole
 * with an {@link IllegalArgumentException} saying what is wrong; nothing of it is returned. A well-formed header of
 * a version the reader does not speak is a {@link VersionException}: the reader cannot follow the group, which is
 * not the same as a damaged batch that every replica drops alike.
 */
public final class BatchCodec {
    static final int MAGIC = 0xB7;
    /** The first version whose batches end in a CRC-32C. */
    static final int CHECKSUMMED = 2;

    /** A batch of a wire version the reader does not speak. */
    public static final class VersionException extends RuntimeException {
        private final int version;

        VersionException(int version, int lowest, int highest) {
            super("a batch of wire version " + version + ", and this build speaks "
                    + (lowest == highest ? "wire version " + lowest : "wire versions " + lowest + "-" + highest));
            this.version = version;
        }

        /** The version the batch names. */
        public int version() {
            return version;
        }
    }

    private BatchCodec() {
    }

    /** The batch of {@code messages} in the format of wire version 1 (tests and tools). */
    public static byte[] encode(List<byte[]> messages) {
        return encode(1, messages);
    }

    /** The batch of {@code messages} in the format of wire version {@code version}. */
    public static byte[] encode(int version, List<byte[]> messages) {
        if (version < 1 || version > 255) {
            throw new IllegalArgumentException("wire version " + version);
        }
        int size = 2 + 5 + 4;
        for (byte[] m : messages) {
            size += 5 + m.length;
        }
        Out out = new Out(size);
        out.write(MAGIC);
        out.write(version);
        varint(out, messages.size());
        for (byte[] m : messages) {
            varint(out, m.length);
            out.writeBytes(m);
        }
        if (version >= CHECKSUMMED) {
            out.checksum();
        }
        return out.toByteArray();
    }

    /** The batch being written; its checksum is taken over its own buffer, without a copy. */
    private static final class Out extends ByteArrayOutputStream {
        Out(int size) {
            super(size);
        }

        /** Appends the CRC-32C of every byte written so far, big-endian. */
        void checksum() {
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(buf, 0, count);
            int c = (int) crc.getValue();
            write(c >>> 24);
            write(c >>> 16);
            write(c >>> 8);
            write(c);
        }
    }

    /** Decodes a batch of wire version 1 (tests and tools). */
    public static List<byte[]> decode(byte[] batch) {
        return decode(batch, 0, 1, 1);
    }

    /**
     * Decodes the batch that starts at {@code offset} and runs to the end of {@code batch}, if its wire version is
     * within {@code lowest}-{@code highest}.
     *
     * @throws VersionException if the header is a batch's, of a version outside that range
     */
    public static List<byte[]> decode(byte[] batch, int offset, int lowest, int highest) {
        if (offset < 0 || batch.length - offset < 3 || (batch[offset] & 0xff) != MAGIC) {
            throw new IllegalArgumentException("malformed batch: no batch header");
        }
        int version = batch[offset + 1] & 0xff;
        if (version < lowest || version > highest) {
            throw new VersionException(version, lowest, highest);
        }
        int end = batch.length;
        if (version >= CHECKSUMMED) {
            end -= 4;
            if (end - offset < 3) {
                throw new IllegalArgumentException("malformed batch: too short for its checksum");
            }
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(batch, offset, end - offset);
            int stored = (batch[end] & 0xff) << 24 | (batch[end + 1] & 0xff) << 16 | (batch[end + 2] & 0xff) << 8
                    | (batch[end + 3] & 0xff);
            if (stored != (int) crc.getValue()) {
                throw new IllegalArgumentException("malformed batch: its checksum does not match its bytes");
            }
        }
        return messages(batch, offset + 2, end);
    }

    private static List<byte[]> messages(byte[] batch, int start, int end) {
        int[] pos = {start};
        long count = readVarint(batch, end, pos, "count");
        if (count > end - pos[0]) {
            throw new IllegalArgumentException("malformed batch: " + count + " messages cannot fit in "
                    + (end - pos[0]) + " bytes");
        }
        List<byte[]> out = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            long len = readVarint(batch, end, pos, "length of message " + i);
            if (len > end - pos[0]) {
                throw new IllegalArgumentException("malformed batch: message " + i + " claims " + len
                        + " bytes, " + (end - pos[0]) + " remain");
            }
            byte[] m = new byte[(int) len];
            System.arraycopy(batch, pos[0], m, 0, (int) len);
            pos[0] += (int) len;
            out.add(m);
        }
        if (pos[0] != end) {
            throw new IllegalArgumentException("malformed batch: " + (end - pos[0]) + " bytes after the last message");
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

    private static long readVarint(byte[] b, int end, int[] pos, String what) {
        long v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos[0] >= end) {
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
