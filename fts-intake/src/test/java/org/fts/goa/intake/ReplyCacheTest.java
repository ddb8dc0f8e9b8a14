package org.fts.goa.intake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

/**
 * Stage 9: the reply cache's decisions depend on the delivered stamps (the group's time) only, so two caches fed the
 * same sequence hold the same entries; an executed request's id outlives its reply, so no wall clock can make it
 * execute twice; a snapshot of it round-trips, and a damaged one is refused.
 */
class ReplyCacheTest {
    private static Reply reply(int n) {
        return new Reply(Reply.Kind.NORMAL, new byte[] {(byte) n});
    }

    @Test
    void expiryFollowsTheDeliveredTimestampsNotTheLocalClock() {
        ReplyCache cache = new ReplyCache(100, 60_000, 1_000);
        RequestId a = new RequestId("c", 1);
        cache.put(a, reply(1), 10_000, cache.keepUntil(10_000, 10_000, 11_000));   // kept until 12 000
        assertNotNull(cache.lookup(a, 12_000), "still kept at its expiry");
        assertNotNull(cache.peek(a));
        cache.lookup(new RequestId("c", 2), 12_001);   // a later request moves the cache's clock
        assertNull(cache.peek(a), "gone once a delivered timestamp passed its expiry");
    }

    @Test
    void keepUntilIsTheExpirationPlusTheMarginCappedByTheTtl() {
        ReplyCache cache = new ReplyCache(100, 5_000, 1_000);
        assertEquals(3_000, cache.keepUntil(1_000, 1_000, 2_000));
        assertEquals(2_000, cache.keepUntil(1_000, 1_000, 0), "an expiration in the past keeps it for the margin");
        assertEquals(6_000, cache.keepUntil(1_000, 1_000, 60_000), "capped by the TTL");
        assertEquals(2_000, cache.keepUntil(1_000, 31_000, 2_000),
                "a wall clock 30 s fast shortens the keeping (to the margin), it never moves the stamp");
        assertEquals(6_000, cache.keepUntil(1_000, -29_000, 2_000), "30 s slow: capped by the TTL");
    }

    @Test
    void beyondMaxEntriesTheOldestGoFirst() {
        ReplyCache cache = new ReplyCache(3, 60_000, 1_000);
        for (int i = 1; i <= 5; i++) {
            cache.put(new RequestId("c", i), reply(i), 1_000 + i, 50_000);
        }
        assertEquals(3, cache.size());
        assertNull(cache.peek(new RequestId("c", 1)));
        assertNull(cache.peek(new RequestId("c", 2)));
        assertNotNull(cache.peek(new RequestId("c", 3)));
    }

    @Test
    void aReplyThatWentLeavesItsIdRememberedForTwiceTheTtlAfterItsStamp() {
        ReplyCache cache = new ReplyCache(3, 60_000, 1_000);
        for (int i = 1; i <= 5; i++) {
            cache.put(new RequestId("c", i), reply(i), 1_000 + i, 50_000);
        }
        RequestId first = new RequestId("c", 1);
        assertNull(cache.lookup(first, 2_000), "its reply is gone");
        assertTrue(cache.evictedEarly(first), "but it executed: it must not execute again");
        assertEquals(2, cache.earlyEvictions(), "two replies went before their requests expired (JMX, /metrics)");
        assertFalse(cache.evictedEarly(new RequestId("c", 9)), "a request never seen is not remembered");
        cache.lookup(new RequestId("c", 6), 50_001);   // the group's time passes the replies' expiry
        assertNull(cache.peek(new RequestId("c", 4)), "expired");
        assertTrue(cache.evictedEarly(new RequestId("c", 4)), "an expired reply's id is remembered too");
        cache.lookup(new RequestId("c", 6), 121_005);   // ids 1..5, one run, the last stamped 1 005: until 121 005
        assertTrue(cache.evictedEarly(first), "remembered until 2 x ttl after the newest stamp of its run");
        cache.lookup(new RequestId("c", 6), 121_006);
        assertFalse(cache.evictedEarly(first), "then forgotten");
        assertTrue(cache.isEmpty());
    }

    /**
     * Issue 59: a replica whose wall clock runs 30 s fast captures a request; its client's expiration is then past by
     * that clock, so the reply is kept only for the margin. The request executes, the reply expires, and a retry
     * captured at a replica whose clock is right (a longer keepUntil) is ordered later. Before, the expired entry left
     * nothing behind and the retry executed a second time. Now the id outlives the reply.
     */
    @Test
    void aRetryOfARequestWhoseReplyExpiredEarlyOnASkewedClockNeverExecutesAgain() {
        ReplyCache cache = new ReplyCache(100, 60_000, 5_000);
        long client = 1_000_000;   // the client's expiration, on the client's clock (which is right)
        long realNow = client - 15_000;
        RequestId id = new RequestId("client", 7);
        long k1 = cache.keepUntil(10_000, realNow + 30_000, client);   // captured by the fast replica
        assertEquals(15_000, k1, "its wall clock says the client's retries are over: kept for the margin");
        assertNull(cache.lookup(id, 10_000));
        assertFalse(cache.evictedEarly(id));
        assertFalse(cache.pastKeeping(k1));
        cache.put(id, reply(7), 10_000, k1);
        cache.lookup(new RequestId("other", 1), 20_000);   // the group's time moves on: the reply expires
        assertNull(cache.peek(id));
        long k2 = cache.keepUntil(20_000, realNow + 10_000, client);   // the retry, captured where the clock is right
        assertEquals(30_000, k2);
        assertNull(cache.lookup(id, 20_000));
        assertFalse(cache.pastKeeping(k2), "the retry is not late");
        assertTrue(cache.evictedEarly(id), "but its request executed: it must not execute again");
    }

    @Test
    void aClientsConsecutiveIdsAreOneRunHoweverMany() {
        ReplyCache cache = new ReplyCache(16, 60_000, 1_000);
        for (int i = 1; i <= 10_000; i++) {
            if (i != 5_000) {   // one in flight
                cache.put(new RequestId("c", i), reply(i), 1_000 + i, 1_000 + i);
            }
        }
        assertEquals(2, cache.rememberedRuns(), "two runs around the one in flight");
        assertFalse(cache.evictedEarly(new RequestId("c", 5_000)), "the one in flight may still execute");
        assertNull(cache.lookup(new RequestId("c", 5_000), 11_000));
        cache.put(new RequestId("c", 5_000), reply(0), 11_000, 11_000);
        assertEquals(1, cache.rememberedRuns(), "it closed the gap");
        assertTrue(cache.evictedEarly(new RequestId("c", 1)));
        assertTrue(cache.evictedEarly(new RequestId("c", 10_000)));
        assertEquals(0, cache.forgottenEarly());
    }

    @Test
    void aRunWhoseTimePassedIsNeverJoinedAgain() {
        ReplyCache cache = new ReplyCache(16, 1_000, 0);
        cache.put(new RequestId("c", 1), reply(1), 1_000, 1_000);   // remembered until 3 000
        cache.put(new RequestId("c", 2), reply(2), 3_500, 3_500);   // id 1 is forgotten at 3 500: a run of its own
        assertFalse(cache.evictedEarly(new RequestId("c", 1)));
        assertTrue(cache.evictedEarly(new RequestId("c", 2)));
        assertEquals(1, cache.rememberedRuns());
    }

    /**
     * Whether a run is remembered is decided by the group's time, not by when a sweep freed it: a replica that took
     * the state sweeps at other moments than the one it took it from (its next sweep is not part of the state), yet
     * both answer alike and write the same bytes.
     */
    @Test
    void rememberingDoesNotDependOnWhenASweepRan() throws IOException {
        ReplyCache served = new ReplyCache(16, 1_000, 0);
        served.put(new RequestId("a", 1), reply(1), 1_000, 1_000);   // remembered until 3 000
        served.put(new RequestId("b", 1), reply(1), 2_500, 2_500);   // a sweep; the next one at 3 500
        ReplyCache joined = new ReplyCache(16, 1_000, 0);
        joined.replaceWith(ReplyCache.read(new DataInputStream(new ByteArrayInputStream(bytes(served))), false));
        for (ReplyCache c : java.util.List.of(served, joined)) {
            assertNull(c.lookup(new RequestId("a", 2), 3_200));   // the joiner sweeps here, the other does not
            assertFalse(c.evictedEarly(new RequestId("a", 1)), "a's run ended at 3 000");
            c.put(new RequestId("a", 2), reply(2), 3_200, 3_200);
        }
        assertEquals(served.rememberedRuns(), joined.rememberedRuns());
        assertArrayEquals(bytes(served), bytes(joined));
    }

    /**
     * A copy of a request ordered after the clock passed the time its reply would have been kept (a raft member cut
     * off for long appending it again: chaos bridge seed 64 on the raft binding) is refused, whatever the cache
     * still holds: its reply and its tombstone last only that long, so executing it could execute it twice.
     */
    @Test
    void aRequestOrderedAfterItsKeepingTimeIsPastKeepingEverywhereAlike() {
        ReplyCache a = new ReplyCache(100, 60_000, 1_000);
        ReplyCache b = new ReplyCache(100, 60_000, 1_000);
        long keep = a.keepUntil(10_000, 10_000, 30_000);   // 31 000
        for (ReplyCache c : java.util.List.of(a, b)) {
            c.lookup(new RequestId("c", 1), 31_000);
            assertFalse(c.pastKeeping(keep), "at its keeping time it may still execute");
            c.lookup(new RequestId("c", 2), 31_001);
            assertTrue(c.pastKeeping(keep), "past it, refused");
            assertFalse(c.pastKeeping(0), "a plain client's request (nothing kept) is never refused");
        }
    }

    @Test
    void rememberedRunsAreBoundedToo() {
        ReplyCache cache = new ReplyCache(16, 600_000, 1_000);
        int bound = 16 * ReplyCache.RUNS_PER_ENTRY;
        for (int i = 1; i <= bound + 1; i++) {   // every other id: each a run of its own
            cache.put(new RequestId("c", 2L * i), reply(i), 1_000 + i, 500_000);
        }
        assertTrue(cache.rememberedRuns() <= bound, "past the bound the runs that would go first go");
        assertTrue(cache.forgottenEarly() > 0, "counted");
        assertFalse(cache.evictedEarly(new RequestId("c", 2)), "the oldest went");
        assertTrue(cache.evictedEarly(new RequestId("c", 2L * (bound + 1))), "the newest stays");
    }

    @Test
    void rememberedIdsTravelWithTheSnapshot() throws IOException {
        ReplyCache one = new ReplyCache(3, 60_000, 1_000);
        for (int i = 1; i <= 6; i++) {
            one.put(new RequestId("c", i), reply(i), 1_000 + i, 50_000);
        }
        ReplyCache copy = new ReplyCache(3, 60_000, 1_000);
        copy.replaceWith(ReplyCache.read(new DataInputStream(new ByteArrayInputStream(bytes(one))), false));
        assertTrue(copy.evictedEarly(new RequestId("c", 2)));
        assertArrayEquals(bytes(one), bytes(copy));
        assertEquals(1_006, copy.clock().now(), "the group's time travels with it");
    }

    /** A checkpoint or backup of state format 2 (tombstones) is still read: every id in it is remembered. */
    @Test
    void theFormatWithTombstonesIsStillRead() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        out.writeLong(5_000);
        out.writeInt(1);
        out.writeUTF("c");
        out.writeLong(3);
        out.writeByte(Reply.Kind.NORMAL.ordinal());
        out.writeLong(9_000);
        out.writeInt(1);
        out.write(7);
        out.writeInt(2);   // tombstones
        out.writeUTF("c");
        out.writeLong(1);
        out.writeLong(8_000);
        out.writeUTF("d");
        out.writeLong(4);
        out.writeLong(4_000);   // expired already at 5 000
        ReplyCache cache = new ReplyCache(16, 60_000, 1_000);
        cache.replaceWith(ReplyCache.read(new DataInputStream(new ByteArrayInputStream(b.toByteArray())), true));
        assertNotNull(cache.peek(new RequestId("c", 3)));
        assertTrue(cache.evictedEarly(new RequestId("c", 1)));
        assertTrue(cache.evictedEarly(new RequestId("c", 3)));
        assertFalse(cache.evictedEarly(new RequestId("c", 2)));
        assertFalse(cache.evictedEarly(new RequestId("d", 4)));
    }

    @Test
    void twoCachesFedTheSameSequenceAgreeAndTheSnapshotRoundTrips() throws IOException {
        ReplyCache one = new ReplyCache(50, 10_000, 500);
        ReplyCache two = new ReplyCache(50, 10_000, 500);
        for (int i = 0; i < 200; i++) {
            long ts = 1_000 + i * 37L;
            long keep = ts + (i % 5) * 300L;
            one.put(new RequestId("c" + (i % 3), i), reply(i), ts, keep);
            two.put(new RequestId("c" + (i % 3), i), reply(i), ts, keep);
        }
        byte[] a = bytes(one);
        assertArrayEquals(a, bytes(two), "the same entries in the same order");
        ReplyCache copy = new ReplyCache(50, 10_000, 500);
        copy.replaceWith(ReplyCache.read(new DataInputStream(new ByteArrayInputStream(a)), false));
        assertArrayEquals(a, bytes(copy));
        byte[] truncated = Arrays.copyOf(a, a.length - 3);
        assertThrows(IOException.class,
                () -> ReplyCache.read(new DataInputStream(new ByteArrayInputStream(truncated)), false));
    }

    private static byte[] bytes(ReplyCache cache) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        cache.writeTo(new DataOutputStream(b));
        return b.toByteArray();
    }
}
