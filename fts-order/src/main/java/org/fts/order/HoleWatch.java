package org.fts.order;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import org.fts.gc.MemberId;

/**
 * Offload: the sequencer's ledger of the positions it granted in its epoch, and its watch over holes. A position
 * granted and not filled (its origin crashed, stalled or was cut off before its DATA reached the sequencer) holds
 * back every position after it at every member. The watch names the origin holding the lowest position the
 * sequencer's own member lacks, once that position has been lacking for a while; {@link TimerDuties} probes it and
 * has it excluded if it answers nothing (or if the hole outlasts a longer bound regardless), and the next epoch's
 * recovery drops what lies beyond the hole: the origins ask again for everything not delivered.
 *
 * <p>Thread-safe: grants are recorded under the sequencer's monitor, the watch ticks on the timer.
 */
final class HoleWatch {
    /** A hole: the lowest position missing, who was granted it, since when (System.nanoTime()). */
    record Hole(long position, MemberId origin, long sinceNanos) {
    }

    private final ConcurrentSkipListMap<Long, MemberId> starts = new ConcurrentSkipListMap<>();
    /** The first position not granted (0 while no epoch is sequenced). */
    private volatile long next;
    private volatile long granted;
    /** On the timer thread only. */
    private long watched = -1;
    private long since;

    /** A new view: no epoch sequenced. */
    void reset() {
        starts.clear();
        next = 0;
    }

    /** This member sequences an epoch opening at {@code start}. */
    void open(long start) {
        starts.clear();
        next = start;
    }

    /** Under the sequencer's monitor: positions {@code start} .. {@code start + count - 1} went to {@code origin}. */
    void granted(long start, long count, MemberId origin) {
        starts.put(start, origin);
        next = start + count;
        granted++;
    }

    /** Grants made since this member started. */
    long grants() {
        return granted;
    }

    /**
     * One tick of the timer: the hole at {@code held + 1}, if the sequencer's member holds up to {@code held} and
     * more was granted, and it has been there since the returned time; null if there is none.
     */
    Hole tick(long now, long held) {
        long lack = held + 1;
        Map.Entry<Long, MemberId> owner = starts.floorEntry(lack);
        if (owner != null) {
            starts.headMap(owner.getKey(), false).clear();   // every position before it is held
        }
        if (owner == null || lack >= next) {
            watched = -1;
            return null;
        }
        if (lack != watched) {
            watched = lack;
            since = now;
        }
        return new Hole(lack, owner.getValue(), since);
    }
}
