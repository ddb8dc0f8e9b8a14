package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;

import fts_samples.CounterHelper;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * Exactly-once under real faults: three replica JVMs on JGroups, 20 client threads with the FTS interceptor,
 * 200 {@code increment()} calls each; mid-run a replica is killed with SIGKILL, or hung with SIGSTOP. Every
 * client must finish without an exception, the returned values must be exactly 1..4000, and every surviving
 * replica's counter must be 4000.
 */
class FailoverProcessTest {
    private static final int CLIENTS = 20;
    private static final int CALLS = 200;
    private static final int TOTAL = CLIENTS * CALLS;

    private ReplicaCluster cluster;
    private ORB orb;

    private void start(Properties clientProps) throws Exception {
        cluster = new ReplicaCluster("fo-" + UUID.randomUUID().toString().substring(0, 6), 3, false, List.of(),
                Path.of("target", "child-logs"));
        Properties p = Clients.ftDefaults();
        p.putAll(clientProps);
        orb = ORB.init(new String[0], p);
    }

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();   // SIGKILL to every replica still running (also SIGSTOPped ones), then reaped
        }
    }

    @Test
    void killingTheReplicaMostClientsUseLosesAndRepeatsNothing() throws Exception {
        start(new Properties());
        int victim = 1;   // not the coordinator: r0 started first
        FailoverWorkload.Result r = FailoverWorkload.run(orb, cluster.reference("counter"),
                FailoverWorkload.homes(CLIENTS, 3, victim), CALLS, TOTAL / 4, progress -> kill(victim),
                Duration.ofSeconds(120));
        assertExactlyOnce(r);
        assertCounters(List.of(0, 2));
    }

    @Test
    void killingTheCoordinatorWhichSequencesTheGroupLosesAndRepeatsNothing() throws Exception {
        start(new Properties());
        int victim = 0;   // r0 started first: the JGroups coordinator, and so FTS's sequencer
        FailoverWorkload.Result r = FailoverWorkload.run(orb, cluster.reference("counter"),
                FailoverWorkload.homes(CLIENTS, 3, 1), CALLS, TOTAL / 4, progress -> kill(victim),
                Duration.ofSeconds(120));
        assertExactlyOnce(r);
        assertCounters(List.of(1, 2));
    }

    @Test
    void clientsOfAHungReplicaRedirectAndTheGroupStaysConsistentAfterItResumes() throws Exception {
        Properties p = new Properties();
        p.setProperty("fts.client.reply_timeout", "500ms");
        start(p);
        int victim = 1;
        FailoverWorkload.Result r = FailoverWorkload.run(orb, cluster.reference("counter"),
                FailoverWorkload.homes(CLIENTS, 3, victim), CALLS, TOTAL / 4, progress -> {
                    int[] atStop = snapshot(progress);
                    cluster.pause(victim);
                    // Resume once every unfinished client completed calls after the hang began: the clients of
                    // the hung replica have redirected. Well inside failure detection (FD_ALL3, 6 s).
                    Waits.await(() -> IntStream.range(0, CLIENTS).allMatch(
                            c -> progress.get(c) == CALLS || progress.get(c) > atStop[c] + 1),
                            Duration.ofSeconds(30), () -> "clients did not get past the hung replica");
                    cluster.resume(victim);
                }, Duration.ofSeconds(120));
        assertExactlyOnce(r);
        assertCounters(List.of(0, 1, 2));
    }

    private static int[] snapshot(AtomicIntegerArray progress) {
        int[] s = new int[progress.length()];
        for (int i = 0; i < s.length; i++) {
            s[i] = progress.get(i);
        }
        return s;
    }

    private static void assertExactlyOnce(FailoverWorkload.Result r) {
        assertTrue(r.errors().isEmpty(), () -> "clients failed: " + r.errors());
        assertEquals(TOTAL, r.calls().size());
        assertEquals(0, r.duplicated(), () -> "values returned twice: " + r.calls().stream()
                .collect(java.util.stream.Collectors.groupingBy(FailoverWorkload.Call::value)).entrySet().stream()
                .filter(e -> e.getValue().size() > 1 || e.getKey() > TOTAL).map(String::valueOf).toList());
        assertEquals(0, r.lost(), "values no client received");
        assertEquals(IntStream.rangeClosed(1, TOTAL).boxed().toList(), r.sortedValues());
        assertTrue(r.faultNanos() > 0, "the fault was injected");
    }

    private void assertCounters(List<Integer> replicas) {
        for (int i : replicas) {
            var counter = CounterHelper.narrow(orb.string_to_object(
                    Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(), "counter")));
            Waits.await(() -> counter.value() == TOTAL, Duration.ofSeconds(30),
                    () -> "replica r" + i + " counter is " + counter.value() + ", expected " + TOTAL);
        }
    }

    private void kill(int replica) throws IOException, InterruptedException {
        cluster.kill(replica);   // SIGKILL, and waits until the process is gone
        assertFalse(cluster.isAlive(replica), "r" + replica + " did not die");
    }
}
