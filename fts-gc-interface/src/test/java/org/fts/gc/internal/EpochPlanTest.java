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
}
