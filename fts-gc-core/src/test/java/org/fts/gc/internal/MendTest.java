package org.fts.gc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochPlan.Repair;
import org.fts.gc.internal.EpochPlan.Report;
import org.fts.gc.internal.EpochPlan.Span;
import org.junit.jupiter.api.Test;

/**
 * The mend step of a durable recovery ({@link Mend}, docs/durability.md, "Storage faults"): a damaged entry the
 * decision keeps is fetched from a member whose copy verifies and whose history agrees there; without one, the group
 * waits naming the entry if a majority may hold it, and the damaged member cuts its log before it if not; damage the
 * decision drops needs nothing.
 */
class MendTest {
    private static final GroupConfig N3 = new GroupConfig(3, true);
    private final MemberId a = new MemberId("a");
    private final MemberId b = new MemberId("b");
    private final MemberId c = new MemberId("c");
    private final EpochId older = new EpochId(2, b);
    private final EpochId epoch = new EpochId(5, a);

    private Report of(EpochId e, long last, long commit, long start) {
        return new Report(false, true, e.view(), e, false, List.of(a, b, c), last, commit, 0).lineage(start, List.of())
                .applied(0);
    }

    private static Mend.Plan plan(List<MemberId> members, Map<MemberId, Report> reports) {
        EpochPlan.Decision d = EpochPlan.decide(N3, true, members, reports, members.get(0));
        return Mend.plan(N3, members, reports, d);
    }

    @Test
    void aDamagedEntryIsFetchedFromAMemberWhoseCopyVerifies() {
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 10, 8, 3).damaged(List.of(new Span(6, 6))));
        reports.put(b, of(epoch, 10, 8, 3));
        reports.put(c, of(older, 2, 2, 1));
        Mend.Plan p = plan(List.of(a, b, c), reports);
        assertNotNull(p);
        assertNull(p.waiting(), p::toString);
        assertEquals(List.of(new Repair(b, a, 5, 6)), p.repairs());
        assertTrue(p.cuts().isEmpty(), p::toString);

        // a copy that is damaged too is no copy
        reports.put(b, of(epoch, 10, 8, 3).damaged(List.of(new Span(6, 6))));
        Mend.Plan none = plan(List.of(a, b, c), reports);
        assertTrue(none.waiting() != null && none.waiting().contains("entry 6 of a's log is damaged"), none::toString);
    }

    @Test
    void withoutACopyAnEntryAMajorityMayHoldMakesTheGroupWaitNamingIt() {
        // issue 39's scenario: a and b held the suffix; c was down; a's entry 6 is damaged; b is not here
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 10, 8, 3).damaged(List.of(new Span(6, 6))));
        reports.put(c, of(older, 2, 2, 1));
        Mend.Plan p = plan(List.of(a, c), reports);
        assertNotNull(p);
        assertTrue(p.waiting() != null && p.waiting().contains("entry 6 of a's log is damaged and no replica here "
                + "holds a copy that verifies"), p::toString);
        assertTrue(p.repairs().isEmpty() && p.cuts().isEmpty(), p::toString);
    }

    @Test
    void anEntryNoMajorityCanHoldIsCutNotWaitedFor() {
        // a's own entry 10 of its epoch (from 9): b reports an older epoch with less, c is fresh: only a can hold it
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 10, 8, 9).damaged(List.of(new Span(10, 10))));
        reports.put(b, of(older, 8, 8, 1));
        reports.put(c, new Report(true, false, 0, null, false, List.of(), 0, 0, 0));
        Mend.Plan p = plan(List.of(a, b, c), reports);
        assertNotNull(p);
        assertNull(p.waiting(), p::toString);
        assertEquals(Map.of(a, 9L), p.cuts());
    }

    @Test
    void damageTheDecisionDropsNeedsNothing() {
        // c's damaged entry 5 is of a tail the new epoch does not continue (its lineage says nothing: it has a gap)
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 10, 8, 3));
        reports.put(b, of(epoch, 10, 8, 3));
        reports.put(c, of(older, 6, 3, 1).damaged(List.of(new Span(5, 5))));
        assertNull(plan(List.of(a, b, c), reports));
    }

    /**
     * Issue 59: after a power loss a cut its sync mark could not prove a torn write (a may hold entries from 9 on, and
     * its log ends at 8). b, the source, holds 9 too, so 9 is in the decision's history; c is not here and may hold
     * 11 (the new epoch's start) with a: the group waits rather than found an epoch that reuses a position a
     * majority may have acknowledged. Before, a counted as lacking 11, and a and b founded the epoch.
     */
    @Test
    void aLogThatMayHaveHeldMoreAfterAPowerLossMakesTheGroupWaitForTheReplicaThatMayHoldIt() {
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 8, 8, 3).uncertainFrom(9));
        reports.put(b, of(epoch, 10, 8, 3));
        Mend.Plan p = plan(List.of(a, b), reports);
        assertNotNull(p, "a's report must not be read as lacking what it may have acknowledged");
        assertTrue(p.waiting() != null && p.waiting().contains("a's log may have held entries from 9 on")
                && p.waiting().contains("entry 11"), p::toString);
        assertTrue(p.repairs().isEmpty() && p.cuts().isEmpty(), p::toString);
    }

    /** With every replica here, c's report says it lacks 11: only a may hold it, no majority: the group goes on. */
    @Test
    void withEveryReplicaHereAnUncertainLogDoesNotHoldTheGroupUp() {
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 8, 8, 3).uncertainFrom(9));
        reports.put(b, of(epoch, 10, 8, 3));
        reports.put(c, of(epoch, 7, 7, 3));
        assertNull(plan(List.of(a, b, c), reports));
    }

    /**
     * Under the fault model a power loss damages at most one replica's batch synced last: another uncertain log counts
     * by what it holds, so two cut tails (the other a torn write) do not stop a group where every replica is here.
     */
    @Test
    void asManyUncertainLogsAsReplicasCountOnlyOneAsMayHold() {
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 8, 8, 3).uncertainFrom(9));
        reports.put(b, of(epoch, 10, 8, 3));
        reports.put(c, of(epoch, 7, 7, 3).uncertainFrom(8));
        assertNull(plan(List.of(a, b, c), reports));
    }

    /** A member the decision gives a gap (its epoch older than the source's) needs nothing: that epoch saw its log. */
    @Test
    void anUncertainLogOfAnOlderEpochNeedsNothing() {
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, of(epoch, 10, 8, 3));
        reports.put(b, of(epoch, 10, 8, 3));
        reports.put(c, of(older, 4, 3, 1).uncertainFrom(5));
        assertNull(plan(List.of(a, b, c), reports));
    }
    /**
     * Seed 11605 (1,000 steps, logs): a's entry 6 is of the history of epoch 4 (continued up to 7, then by a's epoch);
     * b holds an entry 6 too, but of its own epoch 9, which continued 4 only up to 5: its lineage says its history parts
     * from a's before 6, so it holds none of a's entry 6. With c fresh only a may hold it: cut, not waited for. Before,
     * b counted as a holder by its length alone, and the group waited for good for a copy nobody had.
     */
    @Test
    void aMemberWhoseHistoryPartsBeforeTheDamagedEntryDoesNotHoldIt() {
        EpochId e4 = new EpochId(4, c);
        EpochId e9 = new EpochId(9, b);
        EpochId e15 = new EpochId(15, a);
        Map<MemberId, Report> reports = new LinkedHashMap<>();
        reports.put(a, new Report(false, true, 15, e15, false, List.of(a, c), 20, 0, 0)
                .lineage(8, List.of(new EpochPlan.Link(e4, 4, 7))).applied(0).damaged(List.of(new Span(6, 6))));
        reports.put(b, new Report(false, true, 9, e9, false, List.of(a, b), 19, 2, 0)
                .lineage(6, List.of(new EpochPlan.Link(e4, 4, 5))).applied(0));
        reports.put(c, new Report(true, false, 0, null, false, List.of(), 0, 0, 0));
        assertTrue(Mend.mayBeCommitted(N3, List.of(a, b, c), reports, a, 5));
        assertFalse(Mend.mayBeCommitted(N3, List.of(a, b, c), reports, a, 6),
                "b's entry 6 is another history's");

        // had b's epoch continued 4 up to 7, its entry 6 would be a's: a majority may hold it
        reports.put(b, new Report(false, true, 9, e9, false, List.of(a, b), 19, 2, 0)
                .lineage(8, List.of(new EpochPlan.Link(e4, 4, 7))).applied(0));
        assertTrue(Mend.mayBeCommitted(N3, List.of(a, b, c), reports, a, 6));

        // Seed 4346 (power losses): where histories part is read from the lineages, not from what a log still holds.
        // a's log, cut short by a power loss at 11, may have held 12; b's later epoch continued a's up to 16 and b holds
        // 12: its entry 12 is a's. Capped by a's last, b read as parting at 11 and 12..16, committed, were dropped.
        EpochId e16 = new EpochId(16, a);
        EpochId e19 = new EpochId(19, b);
        reports.clear();
        reports.put(a, new Report(false, true, 16, e16, false, List.of(a, b), 11, 1, 1).lineage(12, List.of())
                .applied(1).uncertainFrom(12));
        reports.put(b, new Report(false, false, 19, e19, false, List.of(a, b), 17, 16, 11)
                .lineage(17, List.of(new EpochPlan.Link(e16, 16, 16))).applied(16));
        assertTrue(Mend.mayBeCommitted(N3, List.of(a, b), reports, a, 12));
    }
}
