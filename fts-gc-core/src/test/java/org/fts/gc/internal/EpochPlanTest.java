package org.fts.gc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.junit.jupiter.api.Test;

/**
 * The recovery's decision on an epoch that only members with a gap opened (docs/simulator.md, mechanism B; the
 * simulator's seed 4642): taken as the most advanced, it named no synced member, and the group stayed not
 * primary for good although every replica was there.
 */
class EpochPlanTest {
    private static final GroupConfig N3 = new GroupConfig(3, true);
    private final MemberId a = new MemberId("a");
    private final MemberId b = new MemberId("b");
    private final MemberId c = new MemberId("c");
    private final EpochId old = new EpochId(1, c);
    private final EpochId hollow = new EpochId(2, b);

    @Test
    void anEpochThatOnlyAMemberWithAGapOpenedAndNoMajorityCanHaveOpenedCommittedNothing() {
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, old, false, List.of(a, b, c), 5));
        reports.put(b, new EpochPlan.Report(false, false, hollow, false, List.of(a, b, c), 5));   // a gap, unsynced
        reports.put(c, new EpochPlan.Report(false, true, old, false, List.of(a, b, c), 6));
        EpochPlan.Decision d = EpochPlan.decide(N3, List.of(a, b, c), reports, a);
        assertTrue(d.established(), d.reason());
        assertEquals(c, d.source(), "the most advanced history that is held");
        assertEquals(7, d.start());
        assertTrue(d.assignments().get(b).gap(), "the hollow epoch's member skips to the new one");
        assertTrue(List.of(a, c).contains(d.assignments().get(b).provider()), "a synced member of the history names the "
                + "state: " + d.assignments().get(b));
        assertFalse(d.assignments().get(a).gap());
    }

    @Test
    void anEpochThatAMajorityMayHaveOpenedIsStillTheMostAdvanced() {
        // a is a new member (not one of the hollow epoch's): c's predecessor... here the epoch's members a', b, c'
        // are not here to say they did not open it, so it may have committed: the group waits for them.
        MemberId a2 = new MemberId("a2");
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(b, new EpochPlan.Report(false, false, hollow, false, List.of(a2, b, c), 5));
        reports.put(c, new EpochPlan.Report(false, true, old, false, List.of(a2, b, c), 6));
        reports.put(a, new EpochPlan.Report(false, true, old, false, List.of(a2, b, c), 5));
        EpochPlan.Decision d = EpochPlan.decide(new GroupConfig(4, true), List.of(a, b, c), reports, a);
        assertFalse(d.established(), "b and a2 may both have opened it (a majority of its members): " + d);
    }

    // ------------------------------------------------------------------ durable members (fts.durability=log)

    @Test
    void aDurableMemberOfAnotherEpochIsCutBackToItsCommitPointAndRepairedNotGivenAGap() {
        EpochId older = new EpochId(4, c);
        EpochId newer = new EpochId(6, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        // the newer epoch continued the older one's history up to 7 (its lineage), so c's 8..10 are in no later history
        List<EpochPlan.Link> continued = List.of(new EpochPlan.Link(older, 4, 7));
        reports.put(a, new EpochPlan.Report(false, true, 6, newer, false, List.of(a, b), 12, 9).lineage(8, continued));
        reports.put(b, new EpochPlan.Report(false, true, 6, newer, false, List.of(a, b), 11, 9).lineage(8, continued));
        reports.put(c, new EpochPlan.Report(false, true, 4, older, false, List.of(a, b, c), 10, 7));   // its 8..10 diverge
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertTrue(d.established(), d::reason);
        assertEquals(a, d.source());
        assertEquals(13, d.start());
        assertEquals(new EpochPlan.Assignment(false, null, 7), d.assignments().get(c));
        assertEquals(new EpochPlan.Assignment(false, null, -1), d.assignments().get(b));
        assertTrue(d.repairs().contains(new EpochPlan.Repair(a, c, 7, 12)), d.repairs()::toString);
        assertTrue(d.repairs().contains(new EpochPlan.Repair(a, b, 11, 12)), d.repairs()::toString);
        EpochPlan.Decision memory = EpochPlan.decide(N3, false, List.of(a, b, c), reports, a);
        assertTrue(memory.assignments().get(c).gap(), "without a log, the same member gets a gap");
    }

    @Test
    void aLaggingDurableMemberIsRepairedFromWhatItHoldsNotFromACommitPointBeyondIt() {
        // Found by chaos (mixed, seed 13): c knew of commit 40 while it held only up to 30; repaired from 40 it
        // waited for 31..40 for ever.
        EpochId older = new EpochId(4, c);
        EpochId newer = new EpochId(6, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 6, newer, false, List.of(a, b), 50, 45));
        reports.put(b, new EpochPlan.Report(false, true, 6, newer, false, List.of(a, b), 50, 45));
        reports.put(c, new EpochPlan.Report(false, true, 4, older, false, List.of(a, b, c), 30, 40));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertEquals(new EpochPlan.Assignment(false, null, 30), d.assignments().get(c));
        assertTrue(d.repairs().contains(new EpochPlan.Repair(a, c, 30, 50)), d.repairs()::toString);
    }

    @Test
    void epochsWithTheSameIdButAnotherBallotAreNotTheSameEpoch() {
        // After a whole-group restart JGroups numbers views from 1 again: (3, a) can name two epochs.
        EpochId before = new EpochId(3, a);
        EpochId after = new EpochId(3, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        List<EpochPlan.Link> continued = List.of(new EpochPlan.Link(before, 3, 40));
        reports.put(a, new EpochPlan.Report(false, true, 7, after, false, List.of(a, b), 40, 40).lineage(41, continued));
        reports.put(b, new EpochPlan.Report(false, true, 7, after, false, List.of(a, b), 40, 40).lineage(41, continued));
        reports.put(c, new EpochPlan.Report(false, true, 3, before, false, List.of(a, b, c), 50, 44));   // 41..50 a tail
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertEquals(new EpochPlan.Assignment(false, null, 40), d.assignments().get(c),
                "c is of the older epoch: cut back, not repaired on top of its own tail");
    }

    @Test
    void aFreshDurableMemberIsRepairedFromTheStart() {
        EpochId e = new EpochId(6, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b), 12, 12));
        reports.put(b, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b), 12, 12));
        reports.put(c, new EpochPlan.Report(true, false, 0, null, false, List.of(), 0, 0));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertEquals(new EpochPlan.Assignment(false, null, 0), d.assignments().get(c));
        assertTrue(d.repairs().contains(new EpochPlan.Repair(a, c, 0, 12)), d.repairs()::toString);
    }

    @Test
    void aDurableMemberBehindTheSourcesCompactedLogIsGivenAGapAndAProviderNotARepair() {
        EpochId e = new EpochId(6, a);
        EpochId older = new EpochId(4, c);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        // a compacted its log behind a checkpoint at 900: it can repair only entries after 900
        reports.put(a, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b), 1200, 1200, 900));
        reports.put(b, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b), 1200, 1190, 0));
        reports.put(c, new EpochPlan.Report(false, true, 4, older, false, List.of(a, b, c), 600, 580, 0));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertTrue(d.established(), d::toString);
        assertEquals(new EpochPlan.Assignment(true, a, -1), d.assignments().get(c),
                "c's commit point 580 is behind what a's log holds: it fetches a state");
        assertTrue(d.repairs().isEmpty(), d.repairs()::toString);
    }

    @Test
    void aLaggingMemberOfTheSourcesEpochBehindItsCompactedLogIsGivenAGap() {
        EpochId e = new EpochId(6, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b, c), 1200, 1200, 900));
        reports.put(b, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b, c), 1200, 1200, 1000));
        reports.put(c, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b, c), 899, 899, 0));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertEquals(new EpochPlan.Assignment(true, a, -1), d.assignments().get(c));
        assertTrue(d.repairs().isEmpty(), d.repairs()::toString);
        reports.put(c, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b, c), 900, 900, 0));
        d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertEquals(new EpochPlan.Assignment(false, null), d.assignments().get(c), "from 900 it can be repaired");
        assertEquals(List.of(new EpochPlan.Repair(a, c, 900, 1200)), d.repairs());
    }

    @Test
    void aFreshDurableMemberIsGivenAGapWhenTheSourcesLogNoLongerStartsAtTheBeginning() {
        // A founding again at 31 (an interrupted founding) leaves logs that start there; or compaction did.
        EpochId e = new EpochId(6, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 6, e, true, List.of(a, b), 40, 40, 30));
        reports.put(b, new EpochPlan.Report(false, true, 6, e, true, List.of(a, b), 40, 40, 30));
        reports.put(c, new EpochPlan.Report(true, false, 0, null, false, List.of(), 0, 0, 0));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertEquals(new EpochPlan.Assignment(true, a, -1), d.assignments().get(c),
                "no log holds 1..30: repaired from 0 it would wait for ever");
        assertTrue(d.repairs().isEmpty(), d.repairs()::toString);
    }

    @Test
    void afterAWholeGroupRestartTheBallotNotTheViewIdSaysWhichEpochIsLater() {
        // JGroups numbered the views of the group formed again from 1: the later epoch has the lower view id.
        EpochId before = new EpochId(57, b);
        EpochId after = new EpochId(2, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 59, after, false, List.of(a, c), 20, 20)
                .lineage(16, List.of(new EpochPlan.Link(before, 57, 15))));
        reports.put(b, new EpochPlan.Report(false, true, 57, before, false, List.of(a, b, c), 25, 15));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b), reports, b);
        assertTrue(d.established(), d::reason);
        assertEquals(a, d.source(), "the epoch of ballot 59 continues the history; b's tail after 15 is cut");
        assertEquals(new EpochPlan.Assignment(false, null, 15), d.assignments().get(b));
    }

    @Test
    void aDurableMemberCatchingUpMayHaveOpenedTheFoundingEpochSoItIsNotFoundedAgain() {
        EpochId founding = new EpochId(1, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 1, founding, true, List.of(a, b, c), 100, 100));
        reports.put(b, new EpochPlan.Report(true, false, 0, null, false, List.of(), 0, 0));   // a new disk
        reports.put(c, new EpochPlan.Report(false, true, 0, null, false, List.of(), 120, 100));   // cut back, catching up
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertFalse(d.established() && d.founding(), "c opened the founding epoch: refounding would drop 1..100: " + d);
    }

    @Test
    void aDurableMemberCatchingUpBesideAMajorityOfHoldersIsRepairedFromWhatItHolds() {
        // c was cut back for repairs and reports no epoch: the holders decide, and c's lineage (none) says nothing
        EpochId e = new EpochId(6, a);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b), 12, 12));
        reports.put(b, new EpochPlan.Report(false, true, 6, e, false, List.of(a, b), 12, 12));
        reports.put(c, new EpochPlan.Report(false, true, 0, null, false, List.of(), 9, 8));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b, c), reports, a);
        assertTrue(d.established(), d::reason);
        assertEquals(a, d.source());
        assertEquals(13, d.start());
    }

    @Test
    void durableMembersWhoseLatestEpochIsUnknownDoNotFoundTheGroupAnew() {
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(a, new EpochPlan.Report(false, true, 0, null, false, List.of(), 30, 20));   // cut back, repairing
        reports.put(b, new EpochPlan.Report(true, false, 0, null, false, List.of(), 0, 0));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(a, b), reports, a);
        assertTrue(!d.established() && !d.founding(), "a founding would drop a's committed entries: " + d);
    }

    private static EpochPlan.Link link(int view, String sequencer, long ballot, long upTo) {
        return new EpochPlan.Link(new EpochId(view, new MemberId(sequencer)), ballot, upTo);
    }

    @Test
    void aSpliceDoesNotCutBackAMemberOfTheLatestEpochThatHoldsMoreOfItThanTheSource() {
        // Simulator seed 3052 (1,000 steps, logs, offload), view 46: x was cut back by a recovery it never opened, so
        // it is no holder; its log holds epoch E's history up to 27, y's only up to 24; entry 25 was committed in E
        // (a replica not here holds it too). Spliced at y's end, x would be cut back to 24 and 25 lost.
        MemberId x = new MemberId("r2#2");
        MemberId y = new MemberId("r0#5");
        EpochId e = new EpochId(28, new MemberId("r2#0"));
        List<MemberId> members = List.of(new MemberId("r2#0"), new MemberId("r0#1"), new MemberId("r1#0"));
        List<EpochPlan.Link> lineage = List.of(link(16, "r2#0", 16, 22), link(11, "r2#0", 11, 12), link(9, "r2#0", 9, 7));
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(x, new EpochPlan.Report(false, true, 28, e, false, members, 27, 7, 2, 23, lineage, 2, List.of(),
                true, Long.MAX_VALUE, true));
        reports.put(y, new EpochPlan.Report(false, false, 28, e, false, members, 24, 22, 22, 23, lineage, 22,
                List.of(), false, Long.MAX_VALUE, false));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(x, y), reports, x);
        assertFalse(d.established(), () -> "entries 25..27 of the latest epoch would be dropped: " + d);
    }

    @Test
    void aLaterEpochThatCommittedNothingOfItsOwnDoesNotHideAnIntermediateOneThatDid() {
        // Simulator seed 9021 (1,000 steps, logs, offload), view 17: x opened epoch 16@r0#2 alone (its log short of
        // it), which continued 15@r2#2 up to 53; a majority had opened 15 and committed 44 in it. y reports the older
        // 11@r1#3, holding up to 43. Spliced over y's epoch, 44 would be given to another broadcast. x's short log is
        // the source instead: what it holds is 16's history, which holds everything committed (nobody here may have
        // acknowledged 50 in 15, so 15 committed nothing after x's last).
        MemberId x = new MemberId("r0#3");
        MemberId y = new MemberId("r1#3");
        List<EpochPlan.Link> older = List.of(link(8, "r1#3", 27, 40), link(18, "r1#2", 18, 33),
                link(16, "r2#0", 16, 29), link(14, "r0#0", 14, 29), link(11, "r0#0", 11, 28), link(5, "r0#0", 5, 23));
        List<EpochPlan.Link> xLineage = new java.util.ArrayList<>(List.of(link(15, "r2#2", 34, 53),
                link(11, "r1#3", 30, 44)));
        xLineage.addAll(older);
        Map<MemberId, EpochPlan.Report> reports = new LinkedHashMap<>();
        reports.put(x, new EpochPlan.Report(false, true, 35, new EpochId(16, new MemberId("r0#2")), false,
                List.of(new MemberId("r0#2"), y), 49, 22, 4, 54, xLineage, 4, List.of(), true, Long.MAX_VALUE, false));
        reports.put(y, new EpochPlan.Report(false, false, 30, new EpochId(11, y), false,
                List.of(y, new MemberId("r0#1")), 43, 29, 29, 41, older, 33, List.of(), false, Long.MAX_VALUE, false));
        EpochPlan.Decision d = EpochPlan.decide(N3, true, List.of(y, x), reports, y);
        assertTrue(d.established(), d::reason);
        assertEquals(x, d.source(), () -> "entry 44, committed in 15@r2#2, would be given to another broadcast: " + d);
        assertEquals(50, d.start());
    }
}
