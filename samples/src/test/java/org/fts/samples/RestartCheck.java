package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import fts_samples.CounterHelper;
import org.fts.process.Waits;
import org.omg.CORBA.ORB;

/**
 * The check shared by the crash-and-restart process tests: 20 FT client threads make 100 {@code increment()} calls
 * each on a 3-replica cluster; a quarter of the way in, replicas r0..r(killed-1) are killed with SIGKILL at once and
 * started again. The values returned must be exactly 1..2000 (nothing answered lost, nothing executed twice: a call
 * whose reply the crash lost, retried under its FT_REQUEST id, gets the reply of its one execution), and every
 * replica's counter must end at 2000.
 */
final class RestartCheck {
    static final int CLIENTS = 20;
    static final int CALLS = 100;
    static final int TOTAL = CLIENTS * CALLS;

    private RestartCheck() {
    }

    static void killRestartAndVerify(ReplicaCluster cluster, ORB orb, int killed) throws Exception {
        FailoverWorkload.Result r = FailoverWorkload.run(orb, cluster.reference("counter"),
                FailoverWorkload.homes(CLIENTS, 3, 1), CALLS, TOTAL / 4, progress -> {
                    for (int i = 0; i < killed; i++) {
                        cluster.kill(i);   // SIGKILL, and waits until the process is gone
                    }
                    for (int i = 0; i < killed; i++) {
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
            // a restarted replica may still be obtaining the group's state (TRANSIENT): not yet, within the bound
            Waits.await(() -> valueOrMinus1(counter) == TOTAL, Duration.ofSeconds(60),
                    () -> "replica r" + replica + " counter is " + valueOrMinus1(counter) + ", expected " + TOTAL);
        }
    }

    private static int valueOrMinus1(fts_samples.Counter counter) {
        try {
            return counter.value();
        } catch (org.omg.CORBA.TRANSIENT notServingYet) {
            return -1;
        }
    }
}
