package org.fts.gc.jgroups;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupException;
import org.fts.gc.MemberId;
import org.fts.gc.jgroups.Wire.Entry;
import org.fts.gc.jgroups.Wire.Repair;

/** The field codecs {@link Wire}'s messages share: member names, name lists, per-origin marks, repairs. */
final class WireFields {
    private WireFields() {
    }

    static byte[] targeted(byte type, MemberId target) {
        byte[] t = name(target);
        return ByteBuffer.allocate(2 + t.length).put(type).put((byte) t.length).put(t).array();
    }

    static byte[] repair(byte tag, Repair r) {
        int size = 1 + 8 + 4;
        for (Entry e : r.entries()) {
            size += 8 + 1 + name(e.origin()).length + 8 + 4 + e.payload().length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).put(tag).putLong(r.view()).putInt(r.entries().size());
        for (Entry e : r.entries()) {
            byte[] o = name(e.origin());
            b.putLong(e.gseq()).put((byte) o.length).put(o).putLong(e.oseq()).putInt(e.payload().length)
                    .put(e.payload());
        }
        return b.array();
    }

    static Repair readRepair(ByteBuffer b) {
        long view = b.getLong();
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException("repair of " + n + " entries in " + b.remaining() + " bytes");
        }
        List<Entry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long gseq = b.getLong();
            MemberId origin = readName(b);
            long oseq = b.getLong();
            byte[] p = new byte[b.getInt()];
            b.get(p);
            out.add(new Entry(gseq, origin, oseq, p));
        }
        return new Repair(view, out);
    }

    static int namesSize(List<MemberId> names) {
        int size = 4;
        for (MemberId m : names) {
            size += 1 + name(m).length;
        }
        return size;
    }

    static ByteBuffer putNames(ByteBuffer b, List<MemberId> names) {
        b.putInt(names.size());
        for (MemberId m : names) {
            byte[] n = name(m);
            b.put((byte) n.length).put(n);
        }
        return b;
    }

    static List<MemberId> readNames(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException(n + " names in " + b.remaining() + " bytes");
        }
        List<MemberId> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(readName(b));
        }
        return out;
    }

    static int marksSize(Map<MemberId, Long> marks) {
        int size = 4;
        for (MemberId m : marks.keySet()) {
            size += 1 + name(m).length + 8;
        }
        return size;
    }

    static ByteBuffer putMarks(ByteBuffer b, Map<MemberId, Long> marks) {
        b.putInt(marks.size());
        marks.forEach((m, v) -> {
            byte[] n = name(m);
            b.put((byte) n.length).put(n).putLong(v);
        });
        return b;
    }

    static Map<MemberId, Long> readMarks(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException(n + " marks in " + b.remaining() + " bytes");
        }
        Map<MemberId, Long> marks = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            MemberId m = readName(b);
            marks.put(m, b.getLong());
        }
        return marks;
    }

    static MemberId readName(ByteBuffer b) {
        MemberId m = readNameOrNull(b);
        if (m == null) {
            throw new IllegalArgumentException("empty member name");
        }
        return m;
    }

    static MemberId readNameOrNull(ByteBuffer b) {
        byte[] n = new byte[b.get() & 0xff];
        b.get(n);
        return n.length == 0 ? null : new MemberId(new String(n, StandardCharsets.UTF_8));
    }

    static byte[] rest(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static byte[] name(MemberId m) {
        byte[] n = m.name().getBytes(StandardCharsets.UTF_8);
        if (n.length > 255) {
            throw new GroupException("member name longer than 255 bytes: " + m);
        }
        return n;
    }
}
