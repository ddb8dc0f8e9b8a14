package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import fts_samples.CounterHelper;
import org.fts.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * A whole-group power loss with {@code fts.durability=log} (docs/durability.md): three replica JVMs, 20 FT client
 * threads making 100 {@code increment()} calls each; a quarter of the way in, every replica is killed with SIGKILL
 * at once and all are started again on their logs. Nothing answered may be lost (a group restarted empty would
 * return the values 1, 2, ... again), and a call whose reply the crash lost, retried under its FT_REQUEST id, must
 * get the reply of its one execution (the replayed reply cache): the values returned are exactly 1..2000, and every
 * replica's counter ends at 2000.
 */
class DurableRestartProcessTest {
    private static final int CLIENTS = 20;
    private static final int CALLS = 100;
    private static final int TOTAL = CLIENTS * CALLS;

    private ReplicaCluster cluster;
    private ORB orb;

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();   // SIGKILL to every replica still running, then reaped
        }
    }

    @Test
    void aWholeGroupCrashLosesNothingAnsweredAndRepeatsNothing() throws Exception {
        Path data = Files.createTempDirectory(Path.of("target"), "durable-");
        cluster = new ReplicaCluster("dr-" + UUID.randomUUID().toString().substring(0, 6), 3, false,
                List.of("-Dfts.durability=log", "-Dfts.durability.dir=" + data.toAbsolutePath()),
                Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.ftDefaults());
        FailoverWorkload.Result r = FailoverWorkload.run(orb, cluster.reference("counter"),
                FailoverWorkload.homes(CLIENTS, 3, 1), CALLS, TOTAL / 4, progress -> {
                    for (int i = 0; i < 3; i++) {
                        cluster.kill(i);   // SIGKILL, and waits until the process is gone
                    }
                    for (int i = 0; i < 3; i++) {
                        cluster.relaunch(i, List.of());
                    }
                }, Duration.ofSeconds(180));
        assertTrue(r.errors().isEmpty(), () -> "clients failed: " + r.errors());
        assertEquals(TOTAL, r.calls().size());
        assertEquals(0, r.duplicated(), "values returned twice: a crash lost answered increments, or one ran twice");
        assertEquals(0, r.lost(), "values no client received");
        assertEquals(IntStream.rangeClosed(1, TOTAL).boxed().toList(), r.sortedValues());
        for (int i = 0; i < 3; i++) {
            int replica = i;
            var counter = CounterHelper.narrow(orb.string_to_object(
                    Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(), "counter")));
            Waits.await(() -> counter.value() == TOTAL, Duration.ofSeconds(60),
                    () -> "replica r" + replica + " counter is " + counter.value() + ", expected " + TOTAL);
        }
    }
}
