package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.testing.Recorder;
import org.fts.testing.Recorder.Delivery;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link GroupChannel}, run against every binding (one subclass per binding). Each test
 * names the guarantee it checks; docs/group-communication.md maps guarantees to these tests.
 */
public abstract class GroupChannelConformance extends WhiteboardConformance {

    @Test
    void viewsAgreeCoordinatorFirstAndLeaveInstallsNewView() {
        List<Member> m = joinAll("a", "b", "c");
        View va = m.get(0).recorder().lastView();
        for (Member x : m) {
            View v = x.recorder().lastView();
            assertEquals(va.id(), v.id(), "same view id at " + x.id());
            assertEquals(List.of(new MemberId("a"), new MemberId("b"), new MemberId("c")), v.members());
            assertEquals(x.id(), v.self());
            assertTrue(x.recorder().views().get(0).contains(x.id()), "first view contains the joiner");
        }
        assertTrue(va.isCoordinator());
        m.get(1).channel().close();
        for (Member x : List.of(m.get(0), m.get(2))) {
            x.recorder().awaitView(v -> v.size() == 2, WAIT, "b's leave at " + x.id());
        }
        View a2 = m.get(0).recorder().lastView();
        View c2 = m.get(2).recorder().lastView();
        assertEquals(a2.id(), c2.id());
        assertEquals(a2.members(), c2.members());
        assertTrue(a2.id() > va.id(), "view ids increase");
    }

    @Test
    void threeConcurrentSendersTenThousandMessagesOneSequenceNothingLostOrDuplicated() throws Exception {
        List<Member> m = joinAll("a", "b", "c");
        int perSender = 3_400;
        List<Thread> ts = new ArrayList<>();
        for (Member x : m) {
            ts.add(sender(x, new AtomicInteger(), i -> i < perSender));
        }
        for (Thread t : ts) {
            t.join(WAIT.toMillis());
        }
        int total = perSender * 3;
        for (Member x : m) {
            x.recorder().awaitDelivered(total, WAIT);
        }
        List<Delivery> first = m.get(0).recorder().delivered();
        assertEquals(total, first.size());
        assertWellFormed(m.get(0).id(), first);
        for (Member x : m) {
            assertEquals(perSender, countFrom(first, x.id()), "every message of " + x.id());
            assertEquals(first, x.recorder().delivered(), "identical sequence at " + x.id());
        }
    }

    /**
     * A member joining mid-traffic delivers a contiguous stretch that ends the group's history: either from its
     * first view on, with a gap in its first epoch (it fetches the state), or, where the binding gives a joiner the
     * history (raft: its log), all of it and no gap.
     */
    @Test
    void joinerDeliversEverythingOrderedAfterItsViewAndNothingBefore() throws Exception {
        List<Member> m = joinAll("a", "b");
        AtomicBoolean joined = new AtomicBoolean();
        AtomicInteger[] sent = {new AtomicInteger(), new AtomicInteger()};
        int[] stopAt = {Integer.MAX_VALUE, Integer.MAX_VALUE};
        List<Thread> ts = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
            int kk = k;
            // Keep sending until 450 messages after the joiner is in: traffic spans the join on both sides. Each
            // sender stays at most BACKLOG broadcasts ahead of what its member delivered: unthrottled, the flood
            // grew with however long the join took, and the members then had up to 350k deliveries to catch up
            // with on two cores before the deadline (it failed twice so, with the protocol making progress).
            ts.add(sender(m.get(k), sent[k], i -> {
                if (joined.get() && stopAt[kk] == Integer.MAX_VALUE) {
                    stopAt[kk] = i + 450;
                }
                return i < stopAt[kk] && i < 200_000
                        && withinBacklog(m.get(kk), () -> sent[0].get() + sent[1].get());
            }));
        }
        m.get(0).recorder().awaitDelivered(1_500, WAIT);
        Member c = join("c");
        joined.set(true);
        for (Thread t : ts) {
            t.join(WAIT.toMillis());
        }
        int total = sent[0].get() + sent[1].get();
        for (Member x : m) {
            x.recorder().awaitDelivered(total, WAIT);
        }
        List<Delivery> all = m.get(0).recorder().delivered();
        Delivery last = all.get(all.size() - 1);
        c.recorder().awaitState(r -> !r.deliveredUnsafe().isEmpty()
                        && r.deliveredUnsafe().get(r.deliveredUnsafe().size() - 1).equals(last),
                WAIT, () -> "the joiner to deliver the last broadcast " + last);
        List<Delivery> joinerSeq = c.recorder().delivered();
        assertTrue(joinerSeq.size() >= 900, "joined mid-traffic: at least the 2x450 later messages");
        assertContinuesTheHistory(c, all);
        View cv = c.recorder().views().get(0);
        assertTrue(cv.contains(c.id()) && cv.size() == 3, "joiner's first view holds all three: " + cv);
    }

    private static final int BACKLOG = 10_000;

    /**
     * Waits (at most {@link #WAIT}) until member {@code m} has delivered all but {@link #BACKLOG} of the {@code
     * sent} broadcasts; false if it did not (the sender then stops, and the test's own waits report it).
     */
    private static boolean withinBacklog(Member m, java.util.function.IntSupplier sent) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (sent.getAsInt() - m.recorder().deliveredCount() > BACKLOG) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);   // polls the condition, bounded above
        }
        return true;
    }

    /**
     * {@code m}'s deliveries are the end of {@code history}: a strict part of it if its first epoch was a gap (it
     * missed the rest, and was told), all of it if not.
     */
    protected static void assertContinuesTheHistory(Member m, List<Delivery> history) {
        List<Delivery> seq = m.recorder().delivered();
        Epoch first = m.recorder().epochs().get(0);
        assertEquals(history.subList(history.size() - seq.size(), history.size()), seq,
                m.id() + "'s sequence is exactly the tail of the group's");
        if (first.gap()) {
            assertTrue(seq.size() < history.size(), m.id() + " was told of a gap, and missed part of the history");
        } else {
            assertEquals(history.size(), seq.size(), m.id() + " was told of no gap: it delivers the whole history");
        }
    }

    @Test
    void crashOfAMemberMidTrafficSurvivorsAgree() throws Exception {
        crashMidTraffic(2);
    }

    @Test
    void crashOfTheCoordinatorMidTrafficSurvivorsAgree() throws Exception {
        crashMidTraffic(0);
    }

    private void crashMidTraffic(int victimIndex) throws Exception {
        List<Member> m = joinAll("a", "b", "c");
        int perSender = 4_000;
        AtomicInteger[] sent = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        List<Thread> ts = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            ts.add(sender(m.get(k), sent[k], i -> i < perSender));
        }
        Member victim = m.get(victimIndex);
        List<Member> survivors = new ArrayList<>(m);
        survivors.remove(victim);
        survivors.get(0).recorder().awaitDelivered(1_000, WAIT);
        crash(victim.channel());
        for (Thread t : ts) {
            t.join(WAIT.toMillis());
            assertFalse(t.isAlive(), t.getName() + " finished sending");
        }
        for (Member s : survivors) {
            s.recorder().awaitView(v -> v.size() == 2 && !v.contains(victim.id()), WAIT, s.id() + " excludes " + victim.id());
            for (Member sender : survivors) {
                s.recorder().awaitState(r -> countFrom(r.deliveredUnsafe(), sender.id()) == perSender, WAIT,
                        () -> s.id() + " delivers all " + perSender + " of " + sender.id());
            }
        }
        // The survivors' sequences must end up identical (any in-flight broadcast of the victim is settled
        // by the time every survivor message is in).
        Recorder r0 = survivors.get(0).recorder();
        Recorder r1 = survivors.get(1).recorder();
        Waits.await(() -> r0.delivered().equals(r1.delivered()), Duration.ofSeconds(10),
                () -> "identical sequences at survivors (sizes " + r0.deliveredCount() + ", " + r1.deliveredCount() + ")");
        List<Delivery> seq = r0.delivered();
        assertWellFormed(survivors.get(0).id(), seq);
        for (Member s : survivors) {
            assertEquals(perSender, countFrom(seq, s.id()), "exactly once: every message of survivor " + s.id());
        }
        assertTrue(countFrom(seq, victim.id()) <= sent[victimIndex].get());
        View v0 = r0.lastView();
        View v1 = r1.lastView();
        assertEquals(v0.id(), v1.id(), "survivors report the same view");
        assertEquals(v0.members(), v1.members(), "survivors report the same view");
    }

    @Test
    void afterAPartitionMergesEveryMemberDeliversOneSequenceAgain() {
        List<Member> m = joinAll("a", "b", "c");
        Member a = m.get(0);
        Member b = m.get(1);
        Member c = m.get(2);
        for (Member x : m) {
            broadcast(x, "p1-" + x.id() + ":", 200);
        }
        for (Member x : m) {
            x.recorder().awaitDelivered(600, WAIT);
        }
        isolate(c.channel());
        for (Member x : List.of(a, b)) {
            x.recorder().awaitView(v -> v.size() == 2 && !v.contains(c.id()), WAIT, x.id() + " excludes " + c.id());
        }
        c.recorder().awaitView(v -> v.size() == 1, WAIT, c.id() + " is alone");
        for (Member x : m) {   // each side orders its own broadcasts while apart
            broadcast(x, "p2-" + x.id() + ":", 200);
        }
        a.recorder().awaitState(r -> texts(r, "p2-").size() == 400, WAIT, () -> "a delivers its side's 400");
        if (everyViewIsPrimary()) {
            c.recorder().awaitState(r -> texts(r, "p2-").size() == 200, WAIT, () -> "c delivers its own 200");
        } else {
            c.recorder().awaitState(r -> !r.notPrimaryUnsafe().isEmpty(), WAIT, () -> "c alone is not primary");
        }
        heal(c.channel());
        for (Member x : m) {
            x.recorder().awaitView(v -> v.size() == 3 && v.isMerge(), WAIT, x.id() + " installs the merge view");
        }
        for (Member x : m) {
            broadcast(x, "p3-" + x.id() + ":", 200);
        }
        for (Member x : m) {
            x.recorder().awaitState(r -> texts(r, "p3-").size() == 600, WAIT,
                    () -> x.id() + " delivers all 600 broadcasts made after the merge");
        }
        assertEquals(texts(a.recorder(), "p3-"), texts(b.recorder(), "p3-"), "one order after the merge (a, b)");
        assertEquals(texts(a.recorder(), "p3-"), texts(c.recorder(), "p3-"), "one order after the merge (a, c)");
        if (!everyViewIsPrimary()) {   // c's broadcasts of the partition waited for a majority
            for (Member x : m) {
                x.recorder().awaitState(r -> texts(r, "p2-c:").size() == 200, WAIT, () -> x.id() + " delivers c's 200");
            }
            List<String> ap = texts(a.recorder(), "p2-");
            List<String> cp = texts(c.recorder(), "p2-");
            assertEquals(ap, texts(b.recorder(), "p2-"), "one order (a, b)");
            assertEquals(ap.subList(ap.size() - cp.size(), ap.size()), cp, "one order (a, c)");
            return;
        }
        assertEquals(texts(a.recorder(), "p2-"), texts(b.recorder(), "p2-"), "the majority side agreed while apart");
        assertTrue(texts(c.recorder(), "p2-").stream().allMatch(t -> t.startsWith("p2-c:")),
                "nothing crossed from the other side");
        assertTrue(texts(a.recorder(), "p2-").stream().noneMatch(t -> t.startsWith("p2-c:")),
                "nothing crossed from the other side");
    }

    @Test
    void aGroupIsFoundedByAMajorityAndAJoinerIsToldItsStateMustBeFetched() {
        Member a = join("a", new Recorder(), 3);
        a.recorder().awaitState(r -> !r.notPrimaryUnsafe().isEmpty(), WAIT, () -> "a alone is not primary");
        assertTrue(a.recorder().epochs().isEmpty(), "a alone opens no epoch: " + a.recorder().epochs());
        Member b = join("b", new Recorder(), 3);
        Epoch founded = awaitEpoch(b, e -> e.members().size() == 2, "a and b found the group");
        assertFalse(founded.gap(), "the founders hold the initial state");
        assertFalse(awaitEpoch(a, e -> e.members().size() == 2, "a founds").gap());
        a.channel().abcast(bytes("a:0"));
        b.recorder().awaitDelivered(1, WAIT);
        Member c = join("c", new Recorder(), 3);
        Epoch joined = awaitEpoch(c, e -> e.members().size() == 3, "c joins");
        a.channel().abcast(bytes("a:1"));
        b.recorder().awaitDelivered(2, WAIT);
        c.recorder().awaitState(r -> r.deliveredUnsafe().stream().anyMatch(d -> d.text().equals("a:1")), WAIT,
                () -> "c delivers a:1");
        if (joined.gap()) {   // a joiner fetches the state, from a founder
            assertTrue(List.of(a.id(), b.id()).contains(joined.provider()), "from a founder: " + joined.provider());
        }
        assertContinuesTheHistory(c, b.recorder().delivered());
    }

    @Test
    void aMinorityDeliversNothingUntilTheHealThenResumesWithAGap() {
        List<Member> m = joinGroupOf(3, "a", "b", "c");
        Member a = m.get(0);
        Member c = m.get(2);
        awaitEpoch(c, e -> e.members().size() == 3, "c in the full epoch");
        c.channel().synced();   // as if c installed the state it was told to fetch
        broadcast(a, "p1-a:", 10);
        c.recorder().awaitDelivered(10, WAIT);
        isolate(c.channel());
        c.recorder().awaitState(r -> !r.notPrimaryUnsafe().isEmpty(), WAIT, () -> "c, alone, is not primary");
        for (Member x : List.of(a, m.get(1))) {
            awaitEpoch(x, e -> e.members().size() == 2, x.id() + " goes on with a majority");
        }
        broadcast(a, "p2-a:", 20);
        broadcast(c, "p2-c:", 5);   // held: no primary at c
        try {
            assertTrue(readBarrier(c).get(WAIT.toMillis(), TimeUnit.MILLISECONDS) != null,
                    "a member outside the primary refuses a read barrier");
        } catch (Exception e) {
            throw new AssertionError("no answer to a read barrier at the minority", e);
        }
        m.get(1).recorder().awaitState(r -> texts(r, "p2-").size() == 20, WAIT, () -> "the majority delivers");
        assertEquals(List.of(), texts(c.recorder(), "p2-"), "the minority delivered nothing");
        heal(c.channel());
        Epoch merged = awaitEpoch(c, e -> e.members().size() == 3, "c back in a primary epoch");
        for (Member x : m) {
            x.recorder().awaitState(r -> texts(r, "p2-c:").size() == 5, WAIT,
                    () -> x.id() + " delivers c's 5 broadcasts held while apart, once");
        }
        assertEquals(texts(a.recorder(), "p2-c:"), texts(c.recorder(), "p2-c:"));
        if (merged.gap()) {
            assertEquals(List.of(), texts(c.recorder(), "p2-a:"), "told of a gap: c missed what the majority delivered");
        } else {   // the binding gave c what it missed (raft: the leader's log), in its place
            assertEquals(texts(a.recorder(), "p2-"), texts(c.recorder(), "p2-"), "no gap: c delivers what it missed");
        }
    }

    /**
     * A read barrier ({@link GroupChannel#readBarrier}) at one member is ready only after that member delivered every
     * broadcast another member had delivered when the barrier was asked for (a member cut off from the primary refuses
     * it: {@link #aMinorityDeliversNothingUntilTheHealThenResumesWithAGap}).
     */
    @Test
    void aReadBarrierFollowsEveryBroadcastDeliveredAnywhereBeforeIt() throws Exception {
        List<Member> m = joinGroupOf(3, "a", "b", "c");
        for (Member x : m) {
            awaitEpoch(x, e -> e.members().size() == 3, x.id() + " in the full epoch");
        }
        for (int round = 0; round < 12; round++) {
            String prefix = "read" + round + ":";
            Member writer = m.get(round % 3);
            Member reader = m.get((round + 1) % 3);
            broadcast(writer, prefix, 3);
            writer.recorder().awaitState(r -> texts(r, prefix).size() == 3, WAIT, () -> prefix + " delivered at "
                    + writer.id());
            java.util.concurrent.CompletableFuture<Integer> seen = new java.util.concurrent.CompletableFuture<>();
            reader.channel().readBarrier(new ReadBarrier() {
                @Override
                public void ready() {
                    seen.complete(texts(reader.recorder(), prefix).size());
                }

                @Override
                public void refused(String why) {
                    seen.completeExceptionally(new AssertionError("refused in a healthy group: " + why));
                }
            });
            assertEquals(3, seen.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), "what " + reader.id()
                    + " had delivered of " + prefix + " when its barrier was ready");
        }
    }

    /** Asks {@code m} for a read barrier; the future completes with null when ready, or with why it was refused. */
    private static java.util.concurrent.CompletableFuture<String> readBarrier(Member m) {
        java.util.concurrent.CompletableFuture<String> outcome = new java.util.concurrent.CompletableFuture<>();
        m.channel().readBarrier(new ReadBarrier() {
            @Override
            public void ready() {
                outcome.complete(null);
            }

            @Override
            public void refused(String why) {
                outcome.complete(why);
            }
        });
        return outcome;
    }

    @Test
    void aBlockedListenerDoesNotStallTheGroup() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean blocked = new AtomicBoolean();
        // The blocked member is the coordinator (in JGroups also the sequencer): the hardest case.
        Member a = join("a", new Recorder((s, t) -> {
            if (blocked.compareAndSet(false, true)) {
                try {
                    release.await(2, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        Member b = join("b");
        Member c = join("c");
        for (Member x : List.of(a, b, c)) {
            x.recorder().awaitView(v -> v.size() == 3, WAIT, "3 members at " + x.id());
        }
        Thread tb = sender(b, new AtomicInteger(), i -> i < 1_000);
        Thread tc = sender(c, new AtomicInteger(), i -> i < 1_000);
        tb.join(WAIT.toMillis());
        tc.join(WAIT.toMillis());
        b.recorder().awaitDelivered(2_000, WAIT);
        c.recorder().awaitDelivered(2_000, WAIT);
        // The group still orders new broadcasts while a's listener is stuck in its first callback.
        b.channel().abcast(bytes("b:1000"));
        b.recorder().awaitDelivered(2_001, WAIT);
        assertEquals(1, a.recorder().deliveredCount(), "a is stuck in its first delivery");
        Waits.await(() -> a.channel().diagnostics().pendingDeliveries() == 2_000, WAIT,
                () -> "a's queue to hold the rest (has " + a.channel().diagnostics().pendingDeliveries() + ")");
        release.countDown();
        a.recorder().awaitDelivered(2_001, WAIT);
        assertEquals(b.recorder().delivered(), a.recorder().delivered(), "same sequence once released");
        assertEquals(0, a.channel().diagnostics().pendingDeliveries());
    }

    @Test
    void aTaskRunsOnTheDeliveryThreadBetweenTheDeliveriesQueuedBeforeAndAfterIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean inFirst = new AtomicBoolean();
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        Member a = join("a", new Recorder((s, t) -> {
            seen.add(t);
            if (inFirst.compareAndSet(false, true)) {
                try {
                    release.await(2, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        join("b");   // a quiet second member: some bindings order nothing without a majority
        a.recorder().awaitView(v -> v.size() == 2, WAIT, "a sees b");
        a.channel().abcast(bytes("a:0"));
        Waits.await(inFirst::get, WAIT, () -> "a to be in its first delivery");
        a.channel().abcast(bytes("a:1"));
        Waits.await(() -> a.channel().diagnostics().pendingDeliveries() == 1, WAIT, () -> "a:1 queued behind it");
        AtomicBoolean onDeliveryThread = new AtomicBoolean();
        CountDownLatch ran = new CountDownLatch(1);
        a.channel().onDeliveryThread(() -> {
            seen.add("task");
            onDeliveryThread.set(a.channel().isDeliveryThread());
            ran.countDown();
        });
        assertFalse(a.channel().isDeliveryThread(), "the test's thread is not the delivery thread");
        a.channel().abcast(bytes("a:2"));
        release.countDown();
        a.recorder().awaitDelivered(3, WAIT);
        assertTrue(ran.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the task ran");
        // the recorder counts a delivery before its callback adds it here
        Waits.await(() -> seen.size() >= 4, WAIT, () -> "a:2 seen (have " + seen + ")");
        assertEquals(List.of("a:0", "a:1", "task", "a:2"), seen, "in the order offered");
        assertTrue(onDeliveryThread.get(), "on the delivery thread");
        a.channel().close();
        assertThrows(GroupException.class, () -> a.channel().onDeliveryThread(() -> { }), "after close");
    }

    @Test
    void aListenerMayBroadcastFromItsCallback() {
        int chain = 200;
        GroupChannel[] self = new GroupChannel[1];
        Recorder chaining = new Recorder((sender, text) -> {
            int k = Integer.parseInt(text.split(":")[1]);
            if (sender.equals(self[0].self()) && k + 1 < chain) {
                self[0].abcast(bytes("a:" + (k + 1)));
            }
        });
        Member a = join("a", chaining);
        self[0] = a.channel();
        Member b = join("b");
        a.recorder().awaitView(v -> v.size() == 2, WAIT, "2 members");
        b.recorder().awaitView(v -> v.size() == 2, WAIT, "2 members");
        a.channel().abcast(bytes("a:0"));
        b.recorder().awaitDelivered(chain, WAIT);
        a.recorder().awaitDelivered(chain, WAIT);
        assertWellFormed(b.id(), b.recorder().delivered());
        assertEquals(a.recorder().delivered(), b.recorder().delivered());
    }

    @Test
    void pointToPointIsFifoAndReachesOnlyItsTarget() {
        List<Member> m = joinAll("a", "b", "c");
        int n = 500;
        for (int i = 0; i < n; i++) {
            m.get(0).channel().send(m.get(1).id(), bytes("a:" + i));
        }
        // A broadcast after the direct messages: once c has it, a's point-to-point traffic is long done.
        m.get(0).channel().abcast(bytes("a:0"));
        m.get(1).recorder().awaitState(r -> r.receivedUnsafe().size() == n, WAIT, () -> "b receives " + n);
        m.get(2).recorder().awaitDelivered(1, WAIT);
        assertWellFormed(m.get(1).id(), m.get(1).recorder().received());
        assertEquals(List.of(), m.get(2).recorder().received(), "c got none of a's messages to b");
        assertThrows(GroupException.class, () -> m.get(0).channel().send(new MemberId("nobody"), bytes("x")));
    }

    @Test
    void aNameAlreadyInTheGroupIsRejected() {
        joinAll("a", "b");
        GroupException e = assertThrows(GroupException.class, () -> join("b"));
        assertTrue(e.getMessage().contains("already"), e.getMessage());
    }

    @Test
    void broadcastOutsideTheGroupFailsClearly() {
        GroupChannel ch = create("lonely");
        opened.add(ch);
        assertThrows(GroupException.class, () -> ch.abcast(bytes("x")), "before join");
        Member a = join("a");
        a.channel().close();
        assertThrows(GroupException.class, () -> a.channel().abcast(bytes("x")), "after close");
        a.channel().close();
    }
}
