package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;
import org.junit.jupiter.api.Test;

/**
 * The rules of the parts of a {@link Member} that are objects of their own: when an acknowledgement is owed
 * ({@link AckSchedule}), what a damaged log holds beyond the member ({@link LogDamage}), and the checked steps of its
 * {@link HistoryCounters}. The protocol's behaviour
 * with them is the stepped tests' and the simulator's; these pin each rule on its own.
 */
class MemberPartsTest {
    private static final MemberId A = new MemberId("a#1");
    private static final MemberId B = new MemberId("b#1");

    private static Entry entry(long gseq, MemberId origin, long oseq) {
        return new Entry(gseq, origin, oseq, new byte[] {(byte) gseq});
    }

    @Test
    void underUniformDeliveryEveryNewHoldingIsAcknowledgedAndATimerRepeatComesOncePerStanding() {
        AckSchedule acks = new AckSchedule(new GroupConfig(3, true));
        acks.opened(10);
        assertNull(acks.due(7, 10, 10, false), "nothing new held");
        assertEquals(new AckSchedule.Due(7, 12, true), acks.due(7, 12, 10, false),
                "more held: owed at once, by the path that may lose it");
        assertNull(acks.due(7, 12, 10, false), "acknowledged already");
        // held but not known committed: the timer repeats it once, reliably (the first may be lost), not every tick
        assertEquals(new AckSchedule.Due(7, 12, false), acks.due(7, 12, 10, true));
        assertNull(acks.due(7, 12, 10, true), "the same standing: no second repeat");
        assertEquals(new AckSchedule.Due(7, 12, false), acks.due(7, 12, 11, true),
                "another standing (what it knows committed moved, still short of what it holds): once again");
        assertNull(acks.due(7, 12, 12, true), "known committed: nothing to repeat");
    }

    @Test
    void underAgreedDeliveryAcknowledgementsComeEvery512EntriesOrFromTheTimer() {
        AckSchedule acks = new AckSchedule(new GroupConfig(3, false));
        acks.opened(0);
        assertNull(acks.due(4, AckSchedule.EVERY - 1, 0, false));
        assertEquals(new AckSchedule.Due(4, AckSchedule.EVERY, false), acks.due(4, AckSchedule.EVERY, 0, false),
                "reliable: agreed delivery has no repeat to cover a lost one");
        assertEquals(new AckSchedule.Due(4, AckSchedule.EVERY + 1, false),
                acks.due(4, AckSchedule.EVERY + 1, 0, true));
        assertNull(acks.due(4, AckSchedule.EVERY + 1, 0, true), "no repeats without uniform delivery");
    }

    @Test
    void entriesAfterADamagedOneWaitUntilItIsRepairedAndAMismatchedCopyIsNotTaken() {
        LogDamage damage = new LogDamage(A);
        damage.loaded(Map.of(A, 1L), List.of(new MemberLog.Damaged(3, 3, A, 3)), 0);
        damage.keep(entry(4, B, 1));
        assertEquals(3, damage.firstDamaged());
        assertNull(damage.take(4), "behind the damaged entry 3");
        List<Entry> fixes = damage.fixes(List.of(entry(3, B, 9), entry(2, A, 2)));
        assertTrue(fixes.isEmpty(), "a copy whose identity is not the record's is not taken; 2 was never damaged");
        fixes = damage.fixes(List.of(entry(3, A, 3)));
        assertEquals(1, fixes.size());
        Map<MemberId, Long> marks = new HashMap<>();
        damage.repaired(fixes, List.of(), 0, marks);
        assertTrue(damage.isEmpty());
        assertEquals(3L, marks.get(A));
        assertEquals(3, damage.take(3).gseq(), "the repaired entry is held first");
        assertEquals(4, damage.take(4).gseq(), "then the one that waited behind it");
        assertNull(damage.take(5));
    }

    @Test
    void aCutEndsADamagedSpanThatCrossesItAndForgetsWhatLayBeyond() {
        LogDamage damage = new LogDamage(A);
        damage.loaded(Map.of(), List.of(new MemberLog.Damaged(5, 9, null, 0), new MemberLog.Damaged(12, 12, B, 4)), 0);
        damage.keep(entry(10, A, 1));
        damage.extent(12);
        damage.cutAfter(6);
        assertEquals(List.of(new org.fts.gc.internal.EpochPlan.Span(5, 6)), damage.spans());
        assertEquals(6, damage.extent());
        Map<MemberId, Long> marks = new HashMap<>();
        damage.markInto(marks);
        assertTrue(marks.isEmpty(), "entry 10 and the record of 12 were cut with the log: " + marks);
        damage.restartAt(20);
        assertTrue(damage.isEmpty());
        assertEquals(20, damage.extent());
    }

    @Test
    void aLeftOverDamageAtOrBehindTheCheckpointNoLongerCounts() {
        LogDamage damage = new LogDamage(A);
        damage.loaded(Map.of(), List.of(new MemberLog.Damaged(7, 7, A, 7)), 0);
        List<Entry> fixes = damage.fixes(List.of(entry(7, A, 7)));
        assertEquals(1, fixes.size());
        damage.repaired(fixes, List.of(new MemberLog.Damaged(2, 2, null, 0)), 5, new HashMap<>());
        assertTrue(damage.isEmpty(), "damage at 2 is behind the checkpoint at 5: " + damage.spans());
        assertNotNull(damage.take(7));
    }

    @Test
    void aHistoryIsHeldAndDeliveredOneEntryAfterAnotherAndWhatIsKnownCommittedNeverShrinks() {
        HistoryCounters h = new HistoryCounters();
        h.hold(1);
        h.hold(2);
        assertThrows(IllegalStateException.class, () -> h.hold(4), "a hole in the history");
        assertThrows(IllegalStateException.class, () -> h.deliver(2), "delivered out of order");
        h.deliver(1);
        h.deliver(2);
        assertThrows(IllegalStateException.class, () -> h.deliver(3), "delivered beyond what it holds");
        assertEquals(2, h.deliveredHere());
        assertTrue(h.applied());
        h.knowCommitted(5);
        h.knowCommitted(3);
        assertEquals(5, h.commitKnown(), "a majority held it: never forgotten");
        assertThrows(IllegalStateException.class, () -> h.refoundAt(3), "its state holds broadcasts: not a founding");
        h.skipTo(10);
        assertEquals(9, h.held());
        assertEquals(9, h.delivered());
        assertEquals(2, h.deliveredHere(), "skipped by a gap, not delivered here");
        h.logged(9);
        h.replayThrough(9);
        h.cutAfter(7);
        assertEquals(7, h.held());
        assertEquals(7, h.logged());
        assertEquals(9, h.replayTo(), "a recovery's cut back leaves what a restart replays");
        h.cutLogAfter(6);
        assertEquals(6, h.replayTo(), "the mend step's cut drops it from the replay too");
    }
}
