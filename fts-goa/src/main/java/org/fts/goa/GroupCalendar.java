package org.fts.goa;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replicated state behind {@link RequestContext#currentTimeMillis}: the group's time ({@code GroupClock}, which no
 * wall clock moves and which starts at 0 with the group) turned into a calendar time. Each replica casts its offset
 * (its wall clock minus its estimate of the group's time) when it starts serving and every minute
 * ({@code Cast.ClockOffset}); at each position the calendar is the group's time plus the median of the latest offsets
 * of the replicas heard from, and never less than the time it gave last.
 *
 * <p>So one replica whose wall clock is far ahead or behind (the 30 s of the skew nemesis) moves the median by
 * nothing in a group of three, and a calendar that once ran ahead stands still until the group's time catches up.
 * Deterministic: it changes only at positions of the order, and a snapshot carries it whole.
 */
final class GroupCalendar {
    /** Replicas remembered (the latest offset of each); past it the one heard from longest ago is dropped. */
    static final int REMEMBERED = 16;

    private final LinkedHashMap<String, Long> offsets = new LinkedHashMap<>();   // oldest heard first
    private long last;

    /** At a position: {@code replica}'s offset, replacing its earlier one. */
    synchronized void offset(String replica, long offsetMillis) {
        offsets.remove(replica);
        offsets.put(replica, offsetMillis);
        while (offsets.size() > REMEMBERED) {
            offsets.remove(offsets.keySet().iterator().next());
        }
    }

    /** At a position: the calendar time for a request executed at the group's time {@code groupTime}. */
    synchronized long time(long groupTime) {
        long t = groupTime + median();
        if (t > last) {
            last = t;
        }
        return last;
    }

    private long median() {
        if (offsets.isEmpty()) {
            return 0;   // no replica heard from yet: the group's own time, from 0
        }
        List<Long> v = new ArrayList<>(offsets.values());
        v.sort(null);
        return v.get((v.size() - 1) / 2);
    }

    synchronized void writeTo(DataOutputStream out) throws IOException {
        out.writeLong(last);
        out.writeInt(offsets.size());
        for (Map.Entry<String, Long> e : offsets.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeLong(e.getValue());
        }
    }

    /** A calendar read from a snapshot (not yet installed). */
    record Contents(long last, LinkedHashMap<String, Long> offsets) {
        static final Contents EMPTY = new Contents(0, new LinkedHashMap<>());

        static Contents read(DataInputStream in) throws IOException {
            long last = in.readLong();
            int n = in.readInt();
            if (n < 0 || n > REMEMBERED) {
                throw new IOException("a calendar of " + n + " offsets");
            }
            LinkedHashMap<String, Long> offsets = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                offsets.put(in.readUTF(), in.readLong());
            }
            return new Contents(last, offsets);
        }
    }

    /** At a cut: becomes {@code c}. */
    synchronized void replaceWith(Contents c) {
        offsets.clear();
        offsets.putAll(c.offsets());
        last = c.last();
    }
}
