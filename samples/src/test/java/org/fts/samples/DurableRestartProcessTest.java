package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fts.testkit.ReplicaCluster;

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
        cluster = DurableClusters.create("dr");
        orb = ORB.init(new String[0], Clients.ftDefaults());
        RestartCheck.killRestartAndVerify(cluster, orb, 3);
        for (org.fts.gc.LogFigures log : cluster.logStats()) {   // typed figures, from each replica's own log
            assertNotNull(log, "a replica of a durable group has no log figures");
            assertTrue(log.syncs() > 0 && log.diskBytes() > 0 && log.p99Micros() >= log.p50Micros(), log.format());
        }
    }
}
