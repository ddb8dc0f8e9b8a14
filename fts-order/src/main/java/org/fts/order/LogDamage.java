package org.fts.order;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochPlan;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a durable {@link Member}'s log holds but the member does not hold yet (docs/durability.md, "Storage faults"):
 * the positions whose records do not verify (each with the entry's identity where its record still says it), the
 * entries that verify after the first of them, held once the damage before them is repaired, and how far the log
 * reaches, damaged or not. Empty without a log, or with an undamaged one (then {@code extent} is simply what the
 * member holds of its log). Guarded by the member's monitor.
 */
final class LogDamage {
    private static final Logger LOG = LoggerFactory.getLogger(LogDamage.class);

    private final MemberId self;
    private final TreeMap<Long, MemberLog.Damaged> damaged = new TreeMap<>();
    private final TreeMap<Long, Entry> beyond = new TreeMap<>();
    /** The last entry its log holds, damaged or not (it reports this much of a history as its). */
    private long extent;
    /** The marks of the checkpoint its history goes on from (a cut recomputes its marks from them). */
    private Map<MemberId, Long> rootMarks = Map.of();
    /** The last damaged entry at or behind that checkpoint: never given for a repair. */
    private long base;

    LogDamage(MemberId self) {
        this.self = self;
    }

    /** A restarted member's log: its checkpoint's marks, its damaged records and the base behind its checkpoint. */
    void loaded(Map<MemberId, Long> rootMarks, List<MemberLog.Damaged> records, long base) {
        this.rootMarks = Map.copyOf(rootMarks);
        records.forEach(d -> damaged.put(d.from(), d));
        this.base = base;
    }

    boolean isEmpty() {
        return damaged.isEmpty();
    }

    /** The first damaged position, or {@code Long.MAX_VALUE}. */
    long firstDamaged() {
        return damaged.isEmpty() ? Long.MAX_VALUE : damaged.firstKey();
    }

    /** An entry that verifies after a damaged one: held once the damage before it is gone. */
    void keep(Entry e) {
        beyond.put(e.gseq(), e);
    }

    /** The entry at {@code position}, if it waited behind a damage that is gone now: taken out to be held. */
    Entry take(long position) {
        Entry next = beyond.get(position);
        if (next == null || next.gseq() >= firstDamaged()) {
            return null;
        }
        beyond.remove(position);
        return next;
    }

    long extent() {
        return extent;
    }

    void extent(long last) {
        extent = last;
    }

    long base() {
        return base;
    }

    /** Its damaged positions, as spans for its report. */
    List<EpochPlan.Span> spans() {
        return damaged.values().stream().map(d -> new EpochPlan.Span(d.from(), d.to())).toList();
    }

    /** Adds to {@code marks} what its damaged records still say of their entries, and the entries waiting. */
    void markInto(Map<MemberId, Long> marks) {
        beyond.values().forEach(e -> marks.merge(e.origin(), e.oseq(), Math::max));
        damaged.values().stream().filter(d -> d.origin() != null).forEach(d -> marks.merge(d.origin(), d.oseq(),
                Math::max));
    }

    /** Of {@code copies}, those for a damaged position whose record does not name another entry. */
    List<Entry> fixes(List<Entry> copies) {
        List<Entry> fix = new ArrayList<>();
        for (Entry e : copies) {
            Map.Entry<Long, MemberLog.Damaged> d = damaged.floorEntry(e.gseq());
            if (d == null || d.getValue().to() < e.gseq()) {
                continue;
            }
            MemberLog.Damaged record = d.getValue();
            if (record.origin() == null || record.origin().equals(e.origin()) && record.oseq() == e.oseq()) {
                fix.add(e);
            } else {
                LOG.error("{}: a copy of damaged entry {} is {}:{}, but the record says {}:{}: not taken", self,
                        e.gseq(), e.origin(), e.oseq(), record.origin(), record.oseq());
            }
        }
        return fix;
    }

    /**
     * {@code fixed} were written in place of their damaged records; {@code left} is what the log still finds damaged
     * (those at or behind {@code rootPosition} no longer matter). The fixed entries wait with the others after the
     * damage, and their marks count.
     */
    void repaired(List<Entry> fixed, List<MemberLog.Damaged> left, long rootPosition, Map<MemberId, Long> marks) {
        damaged.clear();
        left.stream().filter(d -> d.to() > rootPosition).forEach(d -> damaged.put(d.from(), d));
        for (Entry e : fixed) {
            Map.Entry<Long, MemberLog.Damaged> d = damaged.floorEntry(e.gseq());
            if (d == null || d.getValue().to() < e.gseq()) {
                beyond.put(e.gseq(), e);
                marks.merge(e.origin(), e.oseq(), Math::max);
            }
        }
    }

    int size() {
        return damaged.size();
    }

    /** The log was cut after {@code t}: what it said of later positions is gone; a span across {@code t} ends there. */
    void cutAfter(long t) {
        beyond.tailMap(t, false).clear();
        damaged.tailMap(t, false).clear();
        Map.Entry<Long, MemberLog.Damaged> straddling = damaged.lastEntry();
        if (straddling != null && straddling.getValue().to() > t) {
            MemberLog.Damaged d = straddling.getValue();
            damaged.put(d.from(), new MemberLog.Damaged(d.from(), t, d.origin(), d.oseq()));
        }
        extent = Math.min(extent, t);
    }

    /** The log starts again at {@code position} (a gap, or a founding again): nothing damaged, nothing waiting. */
    void restartAt(long position) {
        beyond.clear();
        damaged.clear();
        extent = position;
    }

    Map<MemberId, Long> rootMarks() {
        return rootMarks;
    }
}
