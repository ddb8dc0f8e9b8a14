package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.fts.gc.GroupConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read lease of {@link TotalOrder} ({@code fts.reads.lease}, docs/reads.md), stepped on a clock of the test's:
 * a sequencer holding a lease its followers granted confirms its own reads without a message; a member that granted
 * one holds its report to a newer epoch's recovery until the lease ends, so the sequencer cut off from the others
 * reads its own state, and no newer epoch answers a write, until then; a member's first report waits one lease (a
 * predecessor's grants are unknown to it).
 */
class ReadLeaseTest {
    private static final long LEASE = 500_000_000L;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private SteppedGroup g;

    @AfterEach
    void stop() {
        if (g != null) {
            g.close();
        }
    }

    private void start(String... names) {
        g = new SteppedGroup(new GroupConfig(3, true).withReadLease(LEASE)).add(names);
        for (String n : names) {
            g.node(n).order.readClock(clock::get);
        }
    }

    private void pass(long nanos, String... ticking) {
        clock.addAndGet(nanos);
        for (String n : ticking) {
            g.node(n).order.readTick(clock.get());
        }
        g.run();
    }

    @Test
    void aRestartedMemberWaitsForTheLongestLeaseItsLogSaysAPredecessorMayHaveGranted() {
        SimLog.Disk disk = new SimLog.Disk();
        disk.lease = 4 * LEASE;   // the incarnation before ran with a lease four times this one's (a rolling restart)
        g = new SteppedGroup(new GroupConfig(3, true).withReadLease(LEASE)).addOn("a", disk);
        g.node("a").order.readClock(clock::get);
        long start = clock.get();
        assertEquals(start + 4 * LEASE, g.node("a").order.member.leaseGrantedUntil(),
                "its first report waits out the predecessor's longest grant, not its own lease");
        pass(LEASE, "a");
        assertEquals(4 * LEASE, disk.lease, "the record stays while a predecessor's grant may run");
        pass(3 * LEASE, "a");
        assertEquals(LEASE, disk.lease, "lowered to this incarnation's lease once every earlier grant ran out");
    }

    @Test
    void aLongerLeaseIsOnRecordBeforeTheMemberGrantsAny() {
        SimLog.Disk disk = new SimLog.Disk();
        disk.lease = LEASE / 2;
        g = new SteppedGroup(new GroupConfig(3, true).withReadLease(LEASE)).addOn("a", disk);
        g.node("a").order.readClock(clock::get);
        assertEquals(LEASE, disk.lease);
        assertEquals(clock.get() + LEASE, g.node("a").order.member.leaseGrantedUntil());
    }

    @Test
    void aSequencerCutOffReadsUnderItsLeaseWhileNoNewerEpochOpensUntilTheLeaseEnds() throws Exception {
        start("c", "a", "b");
        g.view("c", "a", "b");   // c coordinates: the sequencer
        assertNull(g.node("c").order.member.epoch(), "a member's first report waits one lease: nothing opens yet");
        pass(LEASE, "c", "a", "b");
        assertNotNull(g.node("b").order.member.epoch(), "the lease after their start passed: the epoch opened");
        g.send("a", 2);

        CompletableFuture<List<String>> first = g.readBarrier("c");   // a round of pings: the pongs grant the lease
        g.run();
        assertEquals(List.of("a:0", "a:1"), first.get(10, TimeUnit.SECONDS));
        assertEquals(0, g.node("c").order.readRounds.leased());

        g.partition(Set.of("c"));
        g.view("a", "b");        // a and b go on without c, which never hears of it
        assertNull(g.node("a").order.member.epoch(), "their reports wait for the lease they granted c to end");
        g.sendNoRun("a", 1);
        g.run();
        assertEquals(List.of("a:0", "a:1"), g.node("b").texts(), "no newer epoch answers a write meanwhile");

        pass(LEASE / 4, "c", "a", "b");
        CompletableFuture<List<String>> leased = g.readBarrier("c");
        g.run();
        assertEquals(List.of("a:0", "a:1"), leased.get(10, TimeUnit.SECONDS),
                "c reads alone, under its lease: nothing was answered that it does not hold");
        assertEquals(1, g.node("c").order.readRounds.leased());

        pass(LEASE, "c", "a", "b");   // every lease has ended: the reports go, the newer epoch opens
        assertNotNull(g.node("a").order.member.epoch());
        assertEquals(3, g.node("b").delivered(3).size(), "the write waiting for the newer epoch is answered");

        CompletableFuture<List<String>> late = g.readBarrier("c");
        g.run();
        assertFalse(late.isDone(), "c's lease has ended: its read waits for pongs no member of its epoch sends");
        pass(2 * ReadRequester.TIMEOUT_NANOS, "c");
        assertTrue(late.handle((v, e) -> e).get(10, TimeUnit.SECONDS) != null, "refused: the read is ordered");
        assertEquals(1, g.node("c").order.readRounds.leased());
    }

    @Test
    void withoutALeaseTheSameReadAtTheSequencerNeedsAPongEveryTime() throws Exception {
        g = new SteppedGroup(new GroupConfig(3, true)).add("c", "a", "b");
        g.view("c", "a", "b");
        g.send("a", 1);
        for (int i = 0; i < 3; i++) {
            CompletableFuture<List<String>> r = g.readBarrier("c");
            g.run();
            assertEquals(List.of("a:0"), r.get(10, TimeUnit.SECONDS));
        }
        assertEquals(0, g.node("c").order.readRounds.leased());
        g.partition(Set.of("c"));
        CompletableFuture<List<String>> cutOff = g.readBarrier("c");
        g.run();
        assertFalse(cutOff.isDone(), "no lease: a cut-off sequencer never reads alone");
    }
}
