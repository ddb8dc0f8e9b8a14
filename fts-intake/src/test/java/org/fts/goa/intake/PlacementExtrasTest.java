package org.fts.goa.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.fts.gc.MemberId;
import org.fts.gc.Whiteboard;
import org.junit.jupiter.api.Test;

/** {@link Placement#ratios} and {@link Placement#extras}: a replica's work besides its connections, in connections. */
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
        Map<MemberId, Whiteboard.Entry> group = Map.of(R0, entry(0, 18, 426, 260), R1, entry(1, 16, 267, 120),
                R2, entry(2, 16, 270, 123));
        Map<MemberId, Double> ratios = Placement.ratios(group);
        assertEquals(140.0 / 460, ratios.get(R0), 1e-9);
        // 50 x 0.304 x 2 = 30, capped at 50 / 3; 50 x 0.0065 x 2 = 0.65
        assertEquals(Map.of(R0, 17L, R1, 0L, R2, 1L), Placement.extras(group, ratios));
        assertEquals(Map.of(R0, 9L, R1, 0L, R2, 0L), Placement.extras(group, Map.of(R0, 0.09, R2, 0.001)));
    }

    @Test
    void theRatioIsTheSameAtAFifthOfTheLoad() {
        Map<MemberId, Double> ratios = Placement.ratios(Map.of(R0, entry(0, 18, 85 * 2, 52 * 2),
                R1, entry(1, 16, 53 * 2, 24 * 2), R2, entry(2, 16, 54 * 2, 24 * 2)));
        assertEquals(28.0 / 92, ratios.get(R0), 1e-9);
    }

    @Test
    void noReplicaCountsMoreThanTheGroupsMeanConnectionsBesides() {
        Map<MemberId, Whiteboard.Entry> group = Map.of(R0, entry(0, 17, 900, 700), R1, entry(1, 17, 400, 200),
                R2, entry(2, 17, 400, 200));
        assertEquals(17L, Placement.extras(group, Placement.ratios(group)).get(R0), "capped at 51 / 3 connections");
    }

    @Test
    void nothingIsLearnedWhileTheConnectionsHardlyLoadTheGroup() {
        // start-up: busy compiling, but the connections' own CPU is small (40 + 50 thousandths of a core)
        assertEquals(Map.of(), Placement.ratios(Map.of(R0, entry(0, 2, 470, 430), R1, entry(1, 2, 440, 390))));
        assertEquals(Map.of(), Placement.ratios(Map.of(R0, entry(0, 1, 580, 380), R1, entry(1, 0, 400, 200))),
                "fewer connections than replicas");
        assertEquals(Map.of(), Placement.ratios(Map.of(R0, entry(0, 50, 580, 380))));
        assertEquals(Map.of(), Placement.extras(Map.of(R0, entry(0, 9, 580, 380), R1, entry(1, 9, 400, 200)), Map.of()));
    }
}
