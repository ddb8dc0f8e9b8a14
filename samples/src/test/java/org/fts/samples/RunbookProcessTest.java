package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.process.Waits;
import org.fts.replica.StatusReport.Health;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * docs/deployment.md's runbook, step by step, on replica JVMs: replace a dead host (the same replica id on a new
 * address), remove a replica, and change the group size (3 to 4, 3 to 2) without losing state. Each step ends
 * the way the runbook says to check it: {@code fts status} and equal state digests, and the counter holds every
 * answered increment.
 */
class RunbookProcessTest {
    private ReplicaCluster cluster;
    private ORB ft;
    private ORB plain;

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

    private Counter counter() {
        if (ft == null) {
            ft = ORB.init(new String[0], Clients.ftDefaults());
        }
        return CounterHelper.narrow(ft.string_to_object(cluster.reference("counter")));
    }

    /** {@code fts status} over replicas {@code which}, until it says {@code h} (bounded). */
    private String awaitStatus(Health h, int... which) {
        return DurableClusters.awaitStatus(cluster, (exit, text) -> exit == h.exit, String.valueOf(h), which);
    }

    /**
     * Every replica in {@code which} reaches one state digest (bounded: 15 s). A digest is taken at each replica's own
     * cut, and a follower may still be executing the last answered call (it lags by a delivery, or a replay delay), so
     * equal digests are awaited, never sampled once.
     */
    private void assertSameDigest(int... which) throws Exception {
        String[] last = new String[which.length];
        Waits.await(() -> {
            for (int k = 0; k < which.length; k++) {
                try {
                    last[k] = cluster.digest(which[k]);
                } catch (java.io.IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return java.util.Arrays.stream(last).distinct().count() == 1;
        }, Duration.ofSeconds(15), () -> "one state digest across replicas " + java.util.Arrays.toString(which)
                + ": " + java.util.Arrays.toString(last));
    }

    /** SIGTERM to replica {@code i}, and its end (30 s at most). */
    private void stop(int i) throws Exception {
        cluster.terminate(i);
        assertTrue(cluster.awaitExit(i, Duration.ofSeconds(30)).isPresent(), "r" + i + " ends on SIGTERM");
    }

    private static void increments(Counter c, int from, int count) {
        for (int k = 1; k <= count; k++) {
            assertEquals(from + k, c.increment());
        }
    }

    @Test
    void replaceADeadHostWithTheSameReplicaIdOnANewAddress() throws Exception {
        cluster = ReplicaCluster.onHosts("rb-" + UUID.randomUUID().toString().substring(0, 6),
                List.of("127.0.0.2", "127.0.0.3", "127.0.0.4"), List.of(), Path.of("target", "child-logs"));
        Counter c = counter();
        increments(c, 0, 20);
        cluster.kill(2);   // host 127.0.0.4 is gone for good
        increments(c, 20, 5);
        cluster.moveTo(2, "127.0.0.5", List.of());   // runbook: same fts.replica.id, the new host's address
        cluster.awaitReady(2);
        awaitStatus(Health.SERVING, 0, 1, 2);
        increments(c, 25, 5);
        assertSameDigest(0, 1, 2);
        // the replacement serves on its new address
        Properties p = Clients.orbDefaults();
        plain = ORB.init(new String[0], p);
        Counter direct = CounterHelper.narrow(plain.string_to_object(Clients.corbaloc("127.0.0.5",
                cluster.ports().get(2), cluster.group(), "counter")));
        assertEquals(31, direct.increment());
    }

    @Test
    void removeAReplica() throws Exception {
        cluster = new ReplicaCluster("rb-" + UUID.randomUUID().toString().substring(0, 6), 3, false, List.of(),
                Path.of("target", "child-logs"));
        Counter c = counter();
        increments(c, 0, 10);
        stop(2);   // SIGTERM: it leaves the group gracefully
        String status = awaitStatus(Health.RECOVERING, 0, 1, 2);
        assertTrue(status.contains("2 of 3 replicas serve"), status);
        increments(c, 10, 10);
        assertSameDigest(0, 1);
        assertEquals(List.of("r0", "r1"), cluster.view(0));
    }

    @Test
    void growTheGroupFromThreeToFourWithItsLog() throws Exception {
        cluster = DurableClusters.create("rb");
        Counter c = counter();
        increments(c, 0, 30);
        // runbook: stop every replica (SIGTERM), set fts.group.size=4 everywhere, start them and the new one
        for (int i = 0; i < 3; i++) {
            stop(i);
        }
        List<String> four = List.of("-Dfts.group.size=4");
        for (int i = 0; i < 3; i++) {
            cluster.relaunch(i, four);
        }
        int added = cluster.add(four);
        for (int i = 0; i <= added; i++) {
            cluster.awaitReady(i);
        }
        String status = awaitStatus(Health.SERVING, 0, 1, 2, 3);
        assertTrue(status.contains("4 of 4 replicas serve (majority 3)"), status);
        assertTrue(status.matches("(?s).*log=syncs=\\d+ .*disk_bytes=[1-9]\\d* .*"),
                "fts status shows the log: " + status);
        increments(c, 30, 10);   // nothing answered was lost, nothing repeated
        assertSameDigest(0, 1, 2, 3);
    }

    @Test
    void shrinkTheGroupFromThreeToTwoWithItsLog() throws Exception {
        cluster = DurableClusters.create("rb");
        Counter c = counter();
        increments(c, 0, 30);
        // runbook: first stop the replica that goes (the others go on without it), then the rest, then start
        // the rest with fts.group.size=2 and fts.replicas naming the two
        stop(2);
        increments(c, 30, 5);
        for (int i = 0; i < 2; i++) {
            stop(i);
        }
        String two = "-Dfts.replicas=127.0.0.1:" + cluster.ports().get(0) + ",127.0.0.1:" + cluster.ports().get(1);
        for (int i = 0; i < 2; i++) {   // fts.replicas must name no more than fts.group.size (checked at start)
            cluster.relaunch(i, List.of("-Dfts.group.size=2", two));
        }
        cluster.awaitReady(0);
        cluster.awaitReady(1);
        String status = awaitStatus(Health.SERVING, 0, 1);
        assertTrue(status.contains("2 of 2 replicas serve (majority 2)"), status);
        increments(c, 35, 10);
        assertSameDigest(0, 1);
    }
}
