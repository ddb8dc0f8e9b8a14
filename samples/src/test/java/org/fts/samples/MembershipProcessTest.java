package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;
import org.omg.CORBA.TRANSIENT;

/**
 * Membership with real parts: three replica JVMs on JGroups, FT clients, {@code kill -9}, a partition
 * injected at run time (JGroups DISCARD inside one replica process). Every process is reaped by
 * {@link ReplicaCluster#close()}, also when a test fails.
 */
class MembershipProcessTest {
    private ReplicaCluster cluster;
    private ORB ft;
    private ORB plain;

    private void start(List<String> extra) throws Exception {
        cluster = new ReplicaCluster("mb-" + UUID.randomUUID().toString().substring(0, 6), 3, false, extra,
                Path.of("target", "child-logs"));
        ft = ORB.init(new String[0], Clients.ftDefaults());
        Properties p = Clients.orbDefaults();
        p.setProperty("jacorb.retries", "0");
        plain = ORB.init(new String[0], p);
    }

    @AfterEach
    void stop() {
        for (ORB o : new ORB[] {ft, plain}) {
            if (o != null) {
                o.shutdown(false);
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The counter through replica {@code i} only (a plain client: no redirection). */
    private Counter at(int i) {
        return CounterHelper.narrow(plain.string_to_object(
                Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(), "counter")));
    }

    private void assertConverged(List<Integer> replicas, int acked) throws Exception {
        for (int i : replicas) {
            assertEquals(acked, at(i).value(), "r" + i + "'s counter = acknowledged increments");
        }
        // Each digest is taken where that replica is in the order: one still executing the last value() call
        // differs (the reply cache's clock) until it catches up. Diverged replicas never agree.
        List<String> digests = new ArrayList<>();
        Waits.await(() -> {
            digests.clear();
            for (int i : replicas) {
                digests.add(digest(i));
            }
            return new HashSet<>(digests).size() == 1;
        }, Duration.ofSeconds(30), () -> "state digests differ: " + digests);
    }

    private String digest(int i) {
        try {
            return cluster.digest(i);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Voters r0, r1 and r2, and a replica started under another id, r3 (docs/primary-view.md, "Voters and learners"):
     * r3 is a learner. It takes the state, executes every increment and serves a client of its own; but with r1 and r2
     * killed, r0 and r3 are one voter of three and serve nothing. With every replica voting they would be two of three:
     * a second majority beside r1 and r2 had those only been cut off.
     */
    @Test
    void aReplicaStartedUnderAnotherIdIsALearnerThatMakesNoMajority() throws Exception {
        start(List.of("-Dfts.group.voters=r0,r1,r2"));
        CounterLoad load = new CounterLoad(ft, cluster.reference("counter"), 2);
        load.awaitMore(50, "three voters");
        int learner = cluster.add(List.of());
        cluster.awaitReady(learner);
        load.awaitMore(50, "three voters and a learner");
        int acked = load.finish();
        assertEquals(acked + 1, at(learner).increment(), "the learner answers a client of its own");
        assertConverged(List.of(0, 1, 2, learner), acked + 1);
        cluster.kill(1);
        cluster.kill(2);
        String[] why = new String[1];
        Waits.await(() -> {
            try {
                at(learner).increment();
                why[0] = "answered";
            } catch (org.omg.CORBA.SystemException e) {   // TRANSIENT once it knows; TIMEOUT or COMM_FAILURE meanwhile
                why[0] = e.toString();
            }
            return why[0] != null && why[0].contains("1 of the 3 voters");
        }, Duration.ofSeconds(60), () -> "the learner and one voter refuse as a minority: " + why[0]);
    }

    /**
     * The raft binding's voters changed while the group serves (docs/membership.md): r3 and r4 start as learners
     * (fts.gc.raft.members names r0, r1, r2), take the state and are added one at a time; then r0 and r1 are removed,
     * each killed once it is out. FT clients increment throughout. Every answered increment is executed once, the
     * survivors' digests agree, and every survivor names the same three voters. Refusals on the way: an id not
     * running, a replica that is no voter, a removal that would leave no majority.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"memory", "log"})
    void onRaftTheVotersGrowFromThreeToFiveAndShrinkToThreeWhileTheGroupServes(String durability) throws Exception {
        Path data = java.nio.file.Files.createTempDirectory(Path.of("target"), "voters-");
        start(List.of("-Dfts.gc=raft", "-Dfts.gc.raft.members=r0,r1,r2", "-Dfts.durability=" + durability,
                "-Dfts.durability.dir=" + data.toAbsolutePath()));
        CounterLoad load = new CounterLoad(ft, cluster.reference("counter"), 4);
        load.awaitMore(100, "three voters");
        assertEquals("r0,r1,r2", voters(members("list")));
        int r3 = cluster.add(List.of());
        cluster.awaitReady(r3);
        Run notRunning = members("add", "r7");
        assertEquals(1, notRunning.exit, notRunning.out);
        assertTrue(notRunning.out.contains("r7 is not in the view"), notRunning.out);
        Run added = members("add", "r3");
        assertEquals(0, added.exit, added.out);
        assertEquals("r0,r1,r2,r3", voters(added));
        load.awaitMore(100, "four voters");
        int r4 = cluster.add(List.of());
        cluster.awaitReady(r4);
        assertEquals(0, members("add", "r4").exit);
        load.awaitMore(100, "five voters");
        Run removed = members("remove", "r0");
        assertEquals(0, removed.exit, removed.out);
        assertEquals("r1,r2,r3,r4", voters(removed));
        cluster.kill(0);
        load.awaitMore(100, "four voters, r0 gone");
        cluster.kill(r3);
        Run whileR3IsDown = members("remove", "r1");   // leaves r2 and r4 of r2, r3, r4 in the view: 2 of 3
        assertEquals(0, whileR3IsDown.exit, whileR3IsDown.out);
        Run last = members("remove", "r2");   // r4 alone of r3, r4 in the view: no majority
        assertEquals(1, last.exit, last.out);
        assertTrue(last.out.contains("a majority needs 2"), last.out);
        cluster.restart(r3, List.of());
        load.awaitMore(100, "three voters, r1 out");
        cluster.kill(1);
        Run notVoter = members("remove", "r1");
        assertEquals(1, notVoter.exit, notVoter.out);
        assertTrue(notVoter.out.contains("r1 is not a voter"), notVoter.out);
        load.awaitMore(100, "three voters, r1 gone");
        int acked = load.finish();
        // the figure (docs/membership.md); a timing, so printed, not asserted (kills and elections included)
        System.out.printf("voters 3 -> 5 -> 3 on raft (%s): %d increments, longest time without an answer %d ms%n",
                durability, acked, load.longestGap.get() / 1_000_000);
        assertConverged(List.of(2, r3, r4), acked);
        for (int i : List.of(2, r3, r4)) {
            org.fts.process.Waits.await(() -> voters(members("list", "--replica", "r" + i)).equals("r2,r3,r4"),
                    Duration.ofSeconds(30), () -> "r" + i + " names other voters");
        }
    }

    private record Run(int exit, String out) {
    }

    /** bin/fts members against the live replicas' probe ports. */
    private Run members(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        List<String> at = new ArrayList<>();
        for (int i = 0; i < cluster.ports().size(); i++) {
            if (cluster.isAlive(i)) {
                at.add(cluster.probeAddress(i));
            }
        }
        all.addAll(List.of("--at", String.join(",", at), "--group", cluster.group()));
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        int exit = org.fts.replica.MembersCommand.run(all.toArray(new String[0]),
                new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8));
        return new Run(exit, buf.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static String voters(Run r) {
        for (String line : r.out.split("\n")) {
            if (line.startsWith("voters:")) {
                return line.substring("voters:".length()).trim().split(" ")[0];
            }
        }
        throw new AssertionError("no voters in: " + r.out);
    }

    @Test
    void rollingRestartUnderLoadKeepsEveryAcknowledgedIncrementOnEveryReplica() throws Exception {
        start(List.of());
        CounterLoad load = new CounterLoad(ft, cluster.reference("counter"), 6);
        load.awaitMore(300, "traffic started");
        for (int victim : new int[] {1, 2, 0}) {   // r0, the sequencer, last
            cluster.kill(victim);
            load.awaitMore(100, "traffic after killing r" + victim);
            cluster.restart(victim, List.of());   // returns once it serves the group's state
            load.awaitMore(100, "traffic after restarting r" + victim);
        }
        int acked = load.finish();
        assertConverged(List.of(0, 1, 2), acked);
    }

    @Test
    void aPartitionedReplicaRefusesTheMajorityServesAndAfterHealAllConverge() throws Exception {
        start(List.of());
        CounterLoad load = new CounterLoad(ft, cluster.reference("counter"), 4);
        load.awaitMore(200, "traffic started");
        cluster.isolate(2);
        Waits.await(() -> refuses(2), Duration.ofSeconds(30), () -> "r2 still serves while cut off");
        int atSplit = load.values.size();
        load.awaitMore(200, "the majority serving");
        cluster.heal(2);
        Waits.await(() -> !refuses(2), Duration.ofSeconds(60), () -> "r2 does not serve again after the heal");
        load.awaitMore(100, "traffic after the heal");
        int acked = load.finish();
        assertTrue(acked > atSplit + 200);
        assertConverged(List.of(0, 1, 2), acked);
    }

    private boolean refuses(int i) {
        try {
            at(i).value();
            return false;
        } catch (TRANSIENT e) {
            return true;
        }
    }

    @Test
    void answeredIncrementsSurviveTheSequencersCrashRightAfterTheyAreSeen() throws Exception {
        start(List.of());   // the default: uniform delivery
        Counter viaSequencer = at(0);   // r0 started first: the coordinator, FTS's sequencer
        int last = 0;
        for (int k = 0; k < 200; k++) {
            last = viaSequencer.increment();
        }
        cluster.kill(0);   // right after the 200th reply reached the client
        assertEquals(200, last);
        for (int i : List.of(1, 2)) {
            assertEquals(200, at(i).value(), "r" + i + " holds every increment r0 answered");
        }
        assertConverged(List.of(1, 2), 200);
    }

    @Test
    void aSequencerCutOffFromTheOthersAnswersNothing() throws Exception {
        start(List.of());
        Counter viaSequencer = at(0);
        for (int k = 0; k < 50; k++) {
            viaSequencer.increment();
        }
        // Cut off, r0 still believes its view primary until failure detection, and still orders its own
        // clients' requests. No other replica holds them, so it delivers none, and answers none: its client
        // gets TRANSIENT once r0 learns it is alone. (With fts.delivery=agreed it would answer, and that answer
        // could be lost with r0's branch of the history.)
        cluster.isolate(0);   // in effect once this returns
        org.omg.CORBA.SystemException e = org.junit.jupiter.api.Assertions.assertThrows(
                org.omg.CORBA.SystemException.class, viaSequencer::increment);
        assertTrue(e instanceof TRANSIENT, e.toString());
        Waits.await(() -> !refuses(1), Duration.ofSeconds(30), () -> "the majority does not serve");
        int atMajority = at(1).value();
        // The request may have reached the others before the cut (then they hold and execute it), or, held by r0
        // alone, be ordered after the heal: its outcome was reported as unknown (COMPLETED_MAYBE), never as done.
        assertTrue(atMajority == 50 || atMajority == 51, "the majority holds 50 or 51: " + atMajority);
        assertEquals(org.omg.CORBA.CompletionStatus.COMPLETED_MAYBE, e.completed);
        cluster.heal(0);
        Waits.await(() -> !refuses(0), Duration.ofSeconds(60), () -> "r0 does not serve again after the heal");
        int after = at(1).value();
        assertTrue(after == 50 || after == 51, "executed at most once: " + after);
        assertConverged(List.of(0, 1, 2), after);   // r0 fetched the group's state
    }
}
