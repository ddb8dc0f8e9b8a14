package org.fts.log;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A segment written anew around repaired records ({@link SegmentedLog#repair}): the other records keep their bytes,
 * the file is replaced atomically ({@link AtomicFiles#replace}), then scanned again.
 */
final class Rewrite {
    private Rewrite() {
    }

    /** Returns the rewritten segment; {@code damage} loses the entries the rewrite repaired. */
    static Segment segment(Segment s, Map<Long, Record> fixes, TreeMap<Long, Damage> damage, long synced)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Segment.header(s.firstIndex).array());
        long index = s.firstIndex;
        while (index <= s.lastIndex()) {
            Object[] raw = s.raw(index);
            long first = (Long) raw[0];
            long last = (Long) raw[1];
            boolean all = true;
            for (long i = first; i <= last; i++) {
                all &= fixes.containsKey(i);
            }
            if (all) {
                for (long i = first; i <= last; i++) {
                    Record r = fixes.get(i);
                    out.write(Segment.encode(i, r.meta(), r.payload(), synced).array());
                }
            } else {
                out.write((byte[]) raw[2]);
            }
            index = last + 1;
        }
        s.close();
        AtomicFiles.replace(s.path, ByteBuffer.wrap(out.toByteArray()));
        List<Segment.Piece> pieces = new ArrayList<>();
        Segment again = Segment.open(s.path, s.firstIndex, pieces);
        damage.subMap(s.firstIndex, true, s.lastIndex(), true).clear();
        for (Segment.Piece p : pieces) {
            if (p.kind() != Segment.Kind.VALID) {
                damage.put(p.first(), new Damage(p.first(), p.last(),
                        p.kind() == Segment.Kind.BAD_PAYLOAD ? p.meta() : null));
            }
        }
        return again;
    }
}
