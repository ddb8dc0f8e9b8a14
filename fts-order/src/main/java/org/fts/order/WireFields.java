package org.fts.order;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupException;
import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;
import org.fts.gc.internal.EpochPlan;

/** The field codecs {@link Wire}'s messages share: member names, name lists, per-origin marks, epoch ids, lineages,
 * damaged spans. It knows none of Wire's records (those codecs are Wire's own). */
final class WireFields {
    private WireFields() {
    }

    static byte[] targeted(byte type, MemberId target) {
        byte[] t = name(target);
        return ByteBuffer.allocate(2 + t.length).put(type).put((byte) t.length).put(t).array();
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
    static int epochIdSize(EpochId e) {
        return 8 + 1 + (e == null ? 0 : name(e.sequencer()).length);
    }

    /** An epoch id, or none: view id 0 and an empty name. */
    static ByteBuffer putEpochId(ByteBuffer b, EpochId e) {
        byte[] n = e == null ? new byte[0] : name(e.sequencer());
        return b.putLong(e == null ? 0 : e.view()).put((byte) n.length).put(n);
    }

    static EpochId readEpochId(ByteBuffer b) {
        long view = b.getLong();
        MemberId seq = readNameOrNull(b);
        return seq == null ? null : new EpochId(view, seq);
    }

    static int linksSize(List<EpochPlan.Link> links) {
        int size = 1;
        for (EpochPlan.Link l : links) {
            size += epochIdSize(l.epoch()) + 16;
        }
        return size;
    }

    static ByteBuffer putLinks(ByteBuffer b, List<EpochPlan.Link> links) {
        b.put((byte) links.size());
        links.forEach(l -> putEpochId(b, l.epoch()).putLong(l.ballot()).putLong(l.upTo()));
        return b;
    }

    static List<EpochPlan.Link> readLinks(ByteBuffer b) {
        int n = b.get() & 0xff;
        if (n > EpochPlan.Link.KEEP) {
            throw new IllegalArgumentException(n + " lineage links, at most " + EpochPlan.Link.KEEP);
        }
        List<EpochPlan.Link> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            EpochId e = readEpochId(b);
            out.add(new EpochPlan.Link(e, b.getLong(), b.getLong()));
        }
        return out;
    }

    static int spansSize(List<EpochPlan.Span> spans) {
        return 4 + 16 * spans.size();
    }

    static ByteBuffer putSpans(ByteBuffer b, List<EpochPlan.Span> spans) {
        b.putInt(spans.size());
        spans.forEach(s -> b.putLong(s.from()).putLong(s.to()));
        return b;
    }

    static List<EpochPlan.Span> readSpans(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining() / 16) {
            throw new IllegalArgumentException(n + " spans in " + b.remaining() + " bytes");
        }
        List<EpochPlan.Span> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new EpochPlan.Span(b.getLong(), b.getLong()));
        }
        return out;
    }
}
