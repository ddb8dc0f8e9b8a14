package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import fts_goa_test.Counter;
import fts_goa_test.CounterHelper;
import fts_goa_test.HelloObjPOA;
import org.fts.goa.GroupPOA;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.INITIALIZE;
import org.omg.CORBA.TRANSIENT;

/**
 * Primary view and state transfer with real JacORB replicas on the in-JVM group binding
 * (docs/primary-view.md, docs/state-transfer.md). The JGroups counterparts, with
 * replica processes and kill -9, are in {@link MembershipProcessTest}.
 */
class MembershipInJvmTest {

    private static Counter counter(InJvmReplicas r, int i) {
        return CounterHelper.narrow(r.at(i, "counter"));
    }

    private static int servantValue(InJvmReplicas r, int i) {
        return ((CounterImpl) r.servants.get(i).get(1)).valueNow();
    }

    private static void awaitSameDigests(InJvmReplicas r, List<Integer> which) {
        Waits.await(() -> which.stream().map(i -> r.goas.get(i).stateDigest()).distinct().count() == 1,
                Duration.ofSeconds(20), () -> "state digests differ: " + which.stream()
                        .map(i -> "r" + i + "=" + r.goas.get(i).stateDigest().substring(0, 12)).toList());
    }

    @Test
    void theMinorityRefusesTheMajorityServesAndAfterHealAllConverge() throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(3)) {
            CounterLoad.runAndCheck(List.of(counter(r, 0)::increment, counter(r, 1)::increment, counter(r, 2)::increment),
                    6, 20, 0);
            r.network().partition(InJvmReplicas.GROUP, List.of(Set.of(r.member(0), r.member(1)), Set.of(r.member(2))));
            Waits.await(() -> r.goas.get(2).notServing() != null, Duration.ofSeconds(10),
                    () -> "r2 still serves alone");
            TRANSIENT refused = assertThrows(TRANSIENT.class, () -> counter(r, 2).increment());
            assertTrue(refused.getMessage().contains("holds 1 of the 3 replicas"), refused.getMessage());
            int atSplit = servantValue(r, 2);
            CounterLoad.runAndCheck(List.of(counter(r, 0)::increment, counter(r, 1)::increment), 4, 25, 120);   // the majority serves
            assertEquals(atSplit, servantValue(r, 2), "the minority executed nothing");

            r.network().heal(InJvmReplicas.GROUP);
            Waits.await(() -> r.goas.get(2).notServing() == null, Duration.ofSeconds(20),
                    () -> "r2 did not serve again after the heal: it " + r.goas.get(2).notServing());
            awaitSameDigests(r, List.of(0, 1, 2));
            for (int i = 0; i < 3; i++) {
                assertEquals(220, servantValue(r, i), "counter at r" + i);
            }
            assertEquals(221, counter(r, 2).increment(), "r2 serves from the group's state");
        }
    }

    @Test
    void aLateJoinerUnderTrafficConvergesToTheSameDigest() throws Exception {
        Properties n3 = new Properties();
        n3.setProperty("fts.group.size", "3");
        try (InJvmReplicas r = new InJvmReplicas(2, n3)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger acked = new AtomicInteger();
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 6; c++) {
                Counter mine = counter(r, c % 2);
                Thread t = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            mine.increment();
                            acked.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "late-joiner-client-" + c);
                clients.add(t);
                t.start();
            }
            Waits.await(() -> acked.get() >= 200, Duration.ofSeconds(30), () -> "traffic did not start");
            int joiner = r.addReplica();   // returns once it installed the state, traffic still flowing
            int atJoin = acked.get();
            Waits.await(() -> acked.get() >= atJoin + 200, Duration.ofSeconds(30), () -> "traffic stalled");
            stop.set(true);
            for (Thread t : clients) {
                t.join(30_000);
                assertTrue(!t.isAlive(), t.getName() + " still running");
            }
            assertEquals(List.of(), errors);
            awaitSameDigests(r, List.of(0, 1, joiner));
            for (int i : List.of(0, 1, joiner)) {
                assertEquals(acked.get(), servantValue(r, i), "counter at r" + i + " = acknowledged increments");
            }
            assertEquals(acked.get() + 1, counter(r, joiner).increment());
        }
    }

    @Test
    void aServantWithoutTheCheckpointContractIsRefusedNamingTheObject() throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(1)) {
            HelloObjPOA bare = new HelloObjPOA() {
                @Override
                public void set(String s) {
                }

                @Override
                public String get() {
                    return "";
                }
            };
            GroupPOA goa = r.goas.get(0);
            BAD_PARAM e = assertThrows(BAD_PARAM.class,
                    () -> goa.activate_object_with_id("greeter".getBytes(StandardCharsets.UTF_8), bare));
            assertTrue(e.getMessage().contains("'greeter'") && e.getMessage().contains("Checkpointable"),
                    e.getMessage());
        }
    }

    @Test
    void aJoinerWhoseObjectsDifferFromTheGroupsRefusesToStartNamingThem() throws Exception {
        Properties n3 = new Properties();
        n3.setProperty("fts.group.size", "3");
        try (InJvmReplicas r = new InJvmReplicas(2, n3)) {
            int joiner = r.reservePort();
            Properties quick = new Properties();
            quick.setProperty("fts.state.timeout", "2s");
            INITIALIZE e = assertThrows(INITIALIZE.class, () -> r.startReplica(joiner,
                    List.of(new HelloObjImpl(), new CounterImpl()), quick));   // no 'account'
            assertTrue(e.getMessage().contains("'account'"), e.getMessage());
            assertEquals(1, counter(r, 0).increment(), "the group is unaffected");
        }
    }

    /**
     * Overlapping partitions, each starting while the previous heal's state transfers may still run (the
     * in-JVM network delays every delivery a little), with increments through every replica all along: after the
     * last heal every replica serves again, the digests are equal, no value was returned twice, and every counter
     * holds every acknowledged increment (and no more than those plus the ones whose outcome was unknown).
     */
    @Test
    void repeatedOverlappingPartitionsEndInOnePrimaryWithEqualStates() throws Exception {
        java.util.Random rnd = new java.util.Random(17);
        try (InJvmReplicas r = new InJvmReplicas(3)) {
            r.network().setDeliveryDelay(Duration.ofMillis(2));
            Set<Integer> values = new java.util.HashSet<>();
            int unknown = 0;
            for (int step = 0; step < 12; step++) {
                int alone = rnd.nextInt(4);   // 3: everyone alone
                List<Set<org.fts.gc.MemberId>> sides = alone == 3
                        ? List.of(Set.of(r.member(0)), Set.of(r.member(1)), Set.of(r.member(2)))
                        : List.of(Set.of(r.member(alone)));
                r.network().partition(InJvmReplicas.GROUP, sides);
                for (int k = 0; k < 15; k++) {
                    try {
                        assertTrue(values.add(counter(r, k % 3).increment()), "a value returned twice");
                    } catch (TRANSIENT e) {
                        unknown += e.completed.value() == org.omg.CORBA.CompletionStatus._COMPLETED_NO ? 0 : 1;
                    }
                }
                if (rnd.nextBoolean()) {
                    r.network().heal(InJvmReplicas.GROUP);
                }
            }
            r.network().heal(InJvmReplicas.GROUP);
            Waits.await(() -> r.goas.stream().allMatch(g -> g.notServing() == null), Duration.ofSeconds(20),
                    () -> "every replica serves again: " + r.goas.stream().map(GroupPOA::notServing).toList());
            int last = counter(r, 0).increment();
            values.add(last);
            awaitSameDigests(r, List.of(0, 1, 2));
            assertTrue(values.size() > 50, "the group served between the partitions: " + values.size());
            assertTrue(last >= values.size() && last <= values.size() + unknown,
                    "the counter (" + last + ") holds every acknowledged increment (" + values.size() + ") and at most "
                            + unknown + " more");
            assertEquals(values.stream().mapToInt(Integer::intValue).max().orElse(0), last, "no value beyond the last");
        }
    }

}
