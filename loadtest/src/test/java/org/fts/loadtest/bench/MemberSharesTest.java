package org.fts.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The gc bench's per-member shares: threads attributed by whole member names; the lead's ratio to the others. */
class MemberSharesTest {
    private static final List<String> NAMES = List.of("bench-0", "bench-1", "bench-2");

    @Test
    void aThreadBelongsToTheMemberWhoseWholeNameItCarries() {
        assertEquals(1, MemberShares.owner("jgroups-5,gc-bench-1a2b3c4d,bench-1", NAMES), "JGroups' naming");
        assertEquals(2, MemberShares.owner("fts-deliver-bench-2", NAMES), "FTS's delivery thread");
        assertEquals(0, MemberShares.owner("fts-raft-submit-bench-0", NAMES));
        assertEquals(-1, MemberShares.owner("runner-1", NAMES), "jgroups-raft's runner names no member");
        assertEquals(-1, MemberShares.owner("x,bench-10", NAMES), "bench-1 is not bench-10");
        assertEquals(-1, MemberShares.owner("gc-bench-1a2b", List.of("bench-1")), "inside another word");
    }

    @Test
    void theLeadsShareIsComparedWithTheOthersMean() {
        MemberShares.Sample before = new MemberShares.Sample(new long[] {0, 0, 0}, new long[] {0, 0, 0}, 0);
        MemberShares.Sample after = new MemberShares.Sample(new long[] {400, 100, 100}, new long[] {30, 10, 10}, 50);
        String line = MemberShares.describe(before, after, 0, NAMES);
        assertTrue(line.contains("lead=bench-0 bytes_share=67%/17%/17% lead_bytes_ratio=4.00"), line);
        assertTrue(line.contains("cpu_share=60%/20%/20% lead_cpu_ratio=3.00 unattributed_cpu=50%"), line);
    }
}
