package org.fts.goa.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * The group's time: a replica stamps what it executed plus its monotonic time since, the group's time is the largest
 * stamp executed, and no wall clock enters either.
 */
class GroupClockTest {
    @Test
    void aStampIsTheGroupsTimeExecutedPlusTheMonotonicTimeSince() {
        AtomicLong nanos = new AtomicLong(7_000_000_000L);
        GroupClock clock = new GroupClock(nanos::get);
        assertEquals(0, clock.estimate());
        nanos.addAndGet(250_000_000);
        assertEquals(250, clock.estimate(), "a new group's time runs from its start");
        assertEquals(5_000, clock.advance(5_000));
        assertEquals(5_000, clock.estimate());
        nanos.addAndGet(40_000_000);
        assertEquals(5_040, clock.estimate());
        assertEquals(5_000, clock.advance(4_000), "an older stamp does not move it back");
        assertEquals(5_040, clock.estimate(), "nor restarts its monotonic part");
        assertEquals(5_000, clock.now());
    }

    /**
     * Two replicas, the second started 30 s later (or with any wall clock at all): once each executed the same
     * stamp, both stamp what they capture from there, and the group's time is the same for both.
     */
    @Test
    void replicasThatExecutedTheSameStampsStampAlike() {
        AtomicLong a = new AtomicLong(1_000_000_000L);
        AtomicLong b = new AtomicLong(31_000_000_000L);
        GroupClock one = new GroupClock(a::get);
        GroupClock two = new GroupClock(b::get);
        long stamp = one.estimate();
        one.advance(stamp);
        two.advance(stamp);
        a.addAndGet(3_000_000);
        b.addAndGet(3_000_000);
        assertEquals(one.estimate(), two.estimate());
    }

    @Test
    void anInstalledStateSetsIt() {
        AtomicLong nanos = new AtomicLong();
        GroupClock clock = new GroupClock(nanos::get);
        clock.advance(9_000);
        clock.set(2_000);
        nanos.addAndGet(1_000_000);
        assertEquals(2_001, clock.estimate());
    }
}
