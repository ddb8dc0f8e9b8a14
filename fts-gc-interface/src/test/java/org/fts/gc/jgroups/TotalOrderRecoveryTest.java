package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.testing.Recorder;
import org.fts.testing.Recorder.Delivery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TotalOrder}'s recovery, deterministically: members over in-memory FIFO links stepped one message at a
 * time by the test, with the failures that broke JGroups' SEQUENCER injected exactly (a member missing the tail
 * of the sequencer's broadcasts, the sequencer dying with forwards it never ordered, the repairing member dying).
 */
class TotalOrderRecoveryTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** One member: its protocol, its inbox, what it delivered. */
    private final class Node implements TotalOrder.Transport {
        final MemberId id;
        final Recorder recorder = new Recorder();
        final DeliveryPump pump;
        final TotalOrder order;
        final ArrayDeque<Object[]> inbox = new ArrayDeque<>();   // {src, bytes}

        Node(String name) {
            id = new MemberId(name);
            pump = new DeliveryPump(name, recorder);
            pump.start();
            order = new TotalOrder(id, this, pump);
        }

        @Override
        public void unicast(MemberId to, byte[] msg) {
            Node n = nodes.get(to.name());
            if (n != null && !dead.contains(to) && !drop.test(id, n.id)) {
                n.inbox.add(new Object[] {id, msg});
            }
        }

        @Override
        public void control(MemberId to, byte[] msg) {
            unicast(to, msg);   // one FIFO inbox per member: control and data share the order, as in JGroups
        }

        @Override
        public void multicast(byte[] msg) {
            for (Node n : nodes.values()) {
                if (!dead.contains(n.id) && !(msg[0] == Wire.ORD && drop.test(id, n.id))) {
                    n.inbox.add(new Object[] {id, msg});
                }
            }
        }
    }

    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Set<MemberId> dead = new HashSet<>();
    private BiPredicate<MemberId, MemberId> drop = (from, to) -> false;
    private long viewId;

    @AfterEach
    void stopPumps() {
        nodes.values().forEach(n -> n.pump.stop(1000));
    }

    private void start(String... names) {
        for (String n : names) {
            nodes.put(n, new Node(n));
        }
        installView();
    }

    private List<Node> alive() {
        return nodes.values().stream().filter(n -> !dead.contains(n.id)).toList();
    }

    private void installView() {
        viewId++;
        List<MemberId> members = alive().stream().map(n -> n.id).toList();
        for (Node n : alive()) {
            n.order.viewChanged(new View(viewId, members, n.id));
        }
        run();
    }

    private void crash(String name) {
        Node n = nodes.get(name);
        dead.add(n.id);
        n.inbox.clear();
        n.pump.stop(1000);
    }

    /** Delivers queued messages round-robin until every inbox is empty (and acks flow). */
    private void run() {
        for (int round = 0; round < 1_000_000; round++) {
            boolean any = false;
            for (Node n : alive()) {
                Object[] m = n.inbox.poll();
                if (m != null) {
                    any = true;
                    n.order.receive((MemberId) m[0], (byte[]) m[1]);
                }
            }
            if (!any) {
                alive().forEach(n -> n.order.ackIfMoved());
                if (alive().stream().allMatch(n -> n.inbox.isEmpty())) {
                    return;
                }
            }
        }
        throw new AssertionError("no quiescence");
    }

    private void send(String from, int count) {
        Node n = nodes.get(from);
        for (int i = 0; i < count; i++) {
            n.order.abcast((from + ":" + nextSeq(from)).getBytes(StandardCharsets.UTF_8));
        }
    }

    private final Map<String, Integer> seqs = new LinkedHashMap<>();

    private int nextSeq(String from) {
        return seqs.merge(from, 1, Integer::sum) - 1;
    }

    private List<Delivery> delivered(String name, int atLeast) {
        Node n = nodes.get(name);
        n.recorder.awaitDelivered(atLeast, WAIT);
        return n.recorder.delivered();
    }

    private static long from(List<Delivery> seq, String origin) {
        return seq.stream().filter(d -> d.sender().name().equals(origin)).count();
    }

    @Test
    void aMemberThatMissedTheDeadSequencersTailIsRepairedBySurvivors() {
        start("a", "b", "c");
        send("b", 10);
        run();
        // c misses every ORD the sequencer sends from now on; b has them all.
        drop = (from, to) -> from.name().equals("a") && to.name().equals("c");
        send("b", 5);
        send("a", 3);
        run();
        assertEquals(18, delivered("b", 18).size(), "b got everything before the crash");
        assertEquals(10, delivered("c", 10).size(), "c missed the sequencer's tail");
        crash("a");
        drop = (from, to) -> false;
        installView();
        List<Delivery> b = delivered("b", 18);
        List<Delivery> c = delivered("c", 18);
        assertEquals(b, c, "the survivors' sequences");
        assertEquals(15, from(c, "b"), "every broadcast of the surviving sender b, exactly once");
        assertEquals(3, from(c, "a"), "the dead sequencer's own broadcasts that a survivor had reach all survivors");
        send("c", 4);
        run();
        assertEquals(delivered("b", 22), delivered("c", 22), "order continues identically in the new epoch");
    }

    @Test
    void forwardsTheDeadSequencerNeverOrderedAreOrderedOnceByTheNext() {
        start("a", "b", "c");
        send("b", 5);
        run();
        // The sequencer dies with b's next forwards unread in its inbox.
        send("b", 7);
        send("c", 2);
        crash("a");
        installView();
        List<Delivery> b = delivered("b", 14);
        List<Delivery> c = delivered("c", 14);
        assertEquals(b, c);
        assertEquals(12, from(b, "b"));
        assertEquals(2, from(b, "c"));
        assertEquals(14, new HashSet<>(b).size(), "no duplicates");
        assertEquals(0, nodes.get("b").order.unackedCount());
    }

    @Test
    void aForwardToTheNewSequencerNeverOvertakesOlderOnesLostWithTheOldOne() {
        start("a", "b", "c");
        send("c", 3);
        run();
        send("c", 5);   // forwarded to a, which dies before reading them
        crash("a");
        viewId++;
        List<MemberId> members = alive().stream().map(n -> n.id).toList();
        for (Node n : alive()) {
            n.order.viewChanged(new View(viewId, members, n.id));
        }
        send("c", 1);   // c knows b is the sequencer, but has not been asked for its state yet
        run();
        List<Delivery> b = delivered("b", 9);
        assertEquals(b, delivered("c", 9));
        assertEquals(9, from(b, "c"), "all of c's broadcasts, none lost behind the newer one");
        for (int i = 0; i < 9; i++) {
            assertEquals("c:" + i, b.get(i).text(), "in c's order");
        }
    }

    @Test
    void forwardsTheNewSequencerDroppedBeforeItKnewItsRoleAreNotOvertaken() {
        start("a", "b", "c");
        send("c", 2);
        run();
        crash("a");
        viewId++;
        List<MemberId> members = alive().stream().map(n -> n.id).toList();
        nodes.get("c").order.viewChanged(new View(viewId, members, nodes.get("c").id));
        send("c", 3);   // c already knows b is the sequencer; b does not yet, and drops them
        run();
        nodes.get("b").order.viewChanged(new View(viewId, members, nodes.get("b").id));
        send("c", 1);   // reaches b once b knows, before c's resend
        run();
        List<Delivery> b = delivered("b", 6);
        assertEquals(b, delivered("c", 6));
        for (int i = 0; i < 6; i++) {
            assertEquals("c:" + i, b.get(i).text(), "all of c's broadcasts, in c's order");
        }
    }

    @Test
    void aSequencerThatJoinedLateOrdersOriginsWhoseHistoryItNeverSaw() {
        start("a", "b");
        send("b", 4);
        run();
        nodes.put("c", new Node("c"));
        installView();
        crash("a");
        crash("b");
        installView();   // c, the late joiner, is alone and sequences for itself
        send("c", 2);
        run();
        assertEquals(List.of("c:0", "c:1"), delivered("c", 2).stream().map(Delivery::text).toList());
    }

    @Test
    void aRecoveryInterruptedByTheRepairersDeathStillEndsInOneSequence() {
        start("a", "b", "c", "d");
        send("b", 3);
        run();
        // b and c miss the sequencer's tail; only d gets it: d will be the repairer.
        drop = (from, to) -> from.name().equals("a") && !to.name().equals("d") && !to.name().equals("a");
        send("b", 4);
        run();
        crash("a");
        drop = (from, to) -> from.name().equals("d");   // d's repairs never arrive...
        installView();
        crash("d");                                      // ...and d dies during the recovery
        drop = (from, to) -> false;
        installView();
        send("c", 2);
        run();
        List<Delivery> b = delivered("b", 9);
        List<Delivery> c = delivered("c", 9);
        assertEquals(b, c, "the last two survivors agree");
        assertEquals(7, from(b, "b"), "b's forwards that nobody alive had delivered were resent and ordered once");
        assertEquals(2, from(b, "c"));
    }

    @Test
    void aJoinerKeepsBroadcastsThatArriveBeforeItsFirstView() {
        start("a", "b");
        send("b", 3);
        run();
        nodes.put("c", new Node("c"));   // reachable, but its first view is not installed yet
        send("b", 5);
        run();
        assertEquals(0, nodes.get("c").recorder.deliveredCount());
        installView();
        send("a", 2);
        run();
        List<Delivery> all = delivered("b", 10);
        List<Delivery> joiner = delivered("c", 7);
        assertEquals(all.subList(3, 10), joiner, "the joiner delivers everything from its first broadcast on");
    }

    @Test
    void stabilityTrimsTheRepairLog() {
        start("a", "b", "c");
        for (int i = 0; i < 5; i++) {
            send("b", 400);
            run();
        }
        delivered("c", 2_000);
        send("b", 1);   // carries the stability point reached by the acks above
        run();
        for (Node n : alive()) {
            assertTrue(n.order.logSize() < 100, n.id + " keeps only unstable entries: " + n.order.logSize());
        }
    }
}
