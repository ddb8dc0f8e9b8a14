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

    /** endpoint, serving, connections, in flight, CPU, arrivals, fixed, cost (millionths of a core per connection). */
    private static Whiteboard.Entry entry(int endpoint, long cpu, long fixed, long cost) {
        return new Whiteboard.Entry(1, new long[] {endpoint, 1, 17, 0, cpu, 17, fixed, cost}, 0);
    }

    @Test
    void theSequencersOrderingCountsAsTheConnectionsItCouldServeInstead() {
        // every replica executes every request (200); r0 also orders them (180 more); a connection costs 12
        Map<MemberId, Long> extra = Placement.extras(Map.of(R0, entry(0, 580, 380, 12_000),
                R1, entry(1, 400, 200, 12_000), R2, entry(2, 392, 202, 11_000)));
        assertEquals(Map.of(R0, 15L, R1, 0L, R2, 0L), extra);
    }

    @Test
    void noReplicaCountsMoreThanTheGroupsMeanConnectionsBesides() {
        Map<MemberId, Long> extra = Placement.extras(Map.of(R0, entry(0, 900, 700, 12_000),
                R1, entry(1, 400, 200, 12_000), R2, entry(2, 400, 200, 12_000)));
        assertEquals(17L, extra.get(R0), "capped at 51 / 3 connections");
    }

    @Test
    void nothingCountsWhileTheConnectionsDoNotLoadTheGroupOrNoCostIsKnown() {
        // start-up: busy, but the connections' own CPU is small (40 + 50 thousandths of a core)
        assertEquals(Map.of(), Placement.extras(Map.of(R0, entry(0, 470, 430, 12_000), R1, entry(1, 440, 390, 12_000))));
        assertEquals(Map.of(), Placement.extras(Map.of(R0, entry(0, 580, 380, 0), R1, entry(1, 400, 200, 0))));
        assertEquals(Map.of(), Placement.extras(Map.of(R0, entry(0, 580, 380, 12_000))));
    }
}
