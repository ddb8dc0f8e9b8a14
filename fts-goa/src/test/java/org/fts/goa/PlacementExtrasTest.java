package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.fts.gc.MemberId;
import org.fts.gc.Whiteboard;
import org.junit.jupiter.api.Test;

/** {@link Placement#extras}: each replica's work besides its connections, counted in connections. */
class PlacementExtrasTest {
    private static final MemberId R0 = new MemberId("r0#a");
    private static final MemberId R1 = new MemberId("r1#b");
    private static final MemberId R2 = new MemberId("r2#c");

    /** endpoint, serving, connections, in flight, CPU, arrivals, fixed (CPU in thousandths of a core). */
    private static Whiteboard.Entry entry(int endpoint, long connections, long cpu, long fixed) {
        return new Whiteboard.Entry(1, new long[] {endpoint, 1, connections, 0, cpu, connections, fixed}, 0);
    }

    @Test
    void theSequencersOrderingCountsAsTheConnectionsItCouldServeInstead() {
        // every replica executes every call (120); r0 also orders them (140 more); connections' work: 460 in all
        Map<MemberId, Long> extra = Placement.extras(Map.of(R0, entry(0, 18, 426, 260),
                R1, entry(1, 16, 267, 120), R2, entry(2, 16, 270, 123)));
        assertEquals(Map.of(R0, 15L, R1, 0L, R2, 0L), extra);   // 50 x 140 / 460 = 15.2; 50 x 3 / 460 = 0.3
    }

    @Test
    void theSameAtAFifthOfTheLoad() {
        Map<MemberId, Long> extra = Placement.extras(Map.of(R0, entry(0, 18, 85, 52),
                R1, entry(1, 16, 53, 24), R2, entry(2, 16, 54, 24)));
        assertEquals(15L, extra.get(R0));   // 50 x 28 / 92
    }

    @Test
    void noReplicaCountsMoreThanTheGroupsMeanConnectionsBesides() {
        Map<MemberId, Long> extra = Placement.extras(Map.of(R0, entry(0, 17, 900, 700),
                R1, entry(1, 17, 400, 200), R2, entry(2, 17, 400, 200)));
        assertEquals(17L, extra.get(R0), "capped at 51 / 3 connections");
    }

    @Test
    void nothingCountsWhileTheConnectionsHardlyLoadTheGroup() {
        // start-up: busy compiling, but the connections' own CPU is small (20 + 20 thousandths of a core)
        assertEquals(Map.of(), Placement.extras(Map.of(R0, entry(0, 2, 470, 450), R1, entry(1, 2, 410, 390))));
        assertEquals(Map.of(), Placement.extras(Map.of(R0, entry(0, 0, 580, 380), R1, entry(1, 0, 400, 200))));
        assertEquals(Map.of(), Placement.extras(Map.of(R0, entry(0, 50, 580, 380))));
    }
}
