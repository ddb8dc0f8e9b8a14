package org.fts.gc.jgroups;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.fts.gc.GroupException;
import org.fts.gc.MemberId;

/**
 * The messages of {@link TotalOrder}, as bytes. Every message starts with its type byte. Numbers are
 * big-endian longs; a member name is a length byte and UTF-8.
 */
final class Wire {
    static final byte FWD = 1;         // origin -> sequencer: oseq, lowest unacked oseq, payload
    static final byte ORD = 2;         // sequencer -> all: epoch, gseq, stable, origin, oseq, payload
    static final byte ACK = 3;         // member -> sequencer: highest gseq ordered here
    static final byte STATE_REQ = 4;   // new sequencer -> member: viewId (freeze and report)
    static final byte STATE = 5;       // member -> sequencer: viewId, fresh?, last
    static final byte SEND_REPAIR = 6; // sequencer -> most advanced member: viewId, target, from, to
    static final byte REPAIR = 7;      // most advanced member -> lagging member: viewId, entries
    static final byte EPOCH = 8;       // sequencer -> member: viewId, epoch, first gseq of the epoch
    static final byte DIRECT = 9;      // point-to-point application message: payload

    /** One ordered broadcast: its place in the order, its origin and the origin's own number for it. */
    record Entry(long gseq, MemberId origin, long oseq, byte[] payload) {
    }

    private Wire() {
    }

    static byte[] fwd(long oseq, long firstUnacked, byte[] payload) {
        return ByteBuffer.allocate(1 + 16 + payload.length).put(FWD).putLong(oseq).putLong(firstUnacked)
                .put(payload).array();
    }

    static byte[] ord(long epoch, long stable, Entry e) {
        byte[] origin = name(e.origin());
        return ByteBuffer.allocate(1 + 8 + 8 + 8 + 1 + origin.length + 8 + e.payload().length)
                .put(ORD).putLong(epoch).putLong(e.gseq()).putLong(stable)
                .put((byte) origin.length).put(origin).putLong(e.oseq()).put(e.payload()).array();
    }

    static byte[] longs(byte type, long... values) {
        ByteBuffer b = ByteBuffer.allocate(1 + 8 * values.length).put(type);
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    static byte[] sendRepair(long viewId, MemberId target, long fromExclusive, long toInclusive) {
        byte[] t = name(target);
        return ByteBuffer.allocate(1 + 8 + 1 + t.length + 16).put(SEND_REPAIR).putLong(viewId)
                .put((byte) t.length).put(t).putLong(fromExclusive).putLong(toInclusive).array();
    }

    static byte[] repair(long viewId, List<Entry> entries) {
        int size = 1 + 8 + 4;
        for (Entry e : entries) {
            size += 8 + 1 + name(e.origin()).length + 8 + 4 + e.payload().length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).put(REPAIR).putLong(viewId).putInt(entries.size());
        for (Entry e : entries) {
            byte[] o = name(e.origin());
            b.putLong(e.gseq()).put((byte) o.length).put(o).putLong(e.oseq()).putInt(e.payload().length)
                    .put(e.payload());
        }
        return b.array();
    }

    static byte[] direct(byte[] payload) {
        return ByteBuffer.allocate(1 + payload.length).put(DIRECT).put(payload).array();
    }

    // --- reading ---

    static ByteBuffer read(byte[] msg) {
        return ByteBuffer.wrap(msg, 1, msg.length - 1);
    }

    static MemberId readName(ByteBuffer b) {
        byte[] n = new byte[b.get() & 0xff];
        b.get(n);
        return new MemberId(new String(n, StandardCharsets.UTF_8));
    }

    static byte[] rest(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static Entry readOrdEntry(ByteBuffer b, long gseq) {
        MemberId origin = readName(b);
        long oseq = b.getLong();
        return new Entry(gseq, origin, oseq, rest(b));
    }

    static List<Entry> readRepair(ByteBuffer b) {
        int n = b.getInt();
        List<Entry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long gseq = b.getLong();
            MemberId origin = readName(b);
            long oseq = b.getLong();
            byte[] p = new byte[b.getInt()];
            b.get(p);
            out.add(new Entry(gseq, origin, oseq, p));
        }
        return out;
    }

    private static byte[] name(MemberId m) {
        byte[] n = m.name().getBytes(StandardCharsets.UTF_8);
        if (n.length > 255) {
            throw new GroupException("member name longer than 255 bytes: " + m);
        }
        return n;
    }
}
