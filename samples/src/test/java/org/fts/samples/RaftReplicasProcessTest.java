package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * The GOA on the raft binding ({@code fts.gc=raft}, docs/group-communication.md, "The raft binding"), three
 * replica JVMs under FT load ({@link RestartCheck}): one replica (r0) killed with SIGKILL and restarted on its
 * Raft log; then, with synced logs, every replica killed at once and restarted. Nothing answered is lost and
 * nothing executes twice.
 */
class RaftReplicasProcessTest {
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
    void aReplicaKilledAndRestartedOnItsLogLosesAndRepeatsNothing() throws Exception {
        run(List.of(), 1);
    }

    @Test
    void aWholeGroupCrashWithSyncedLogsLosesNothingAnsweredAndRepeatsNothing() throws Exception {
        run(List.of("-Dfts.durability=log"), 3);
    }

    private void run(List<String> more, int killed) throws Exception {
        Path data = Files.createTempDirectory(Path.of("target"), "raft-");
        List<String> options = new ArrayList<>(List.of("-Dfts.gc=raft", "-Dfts.gc.raft.members=r0,r1,r2",
                "-Dfts.durability.dir=" + data.toAbsolutePath()));
        options.addAll(more);
        cluster = new ReplicaCluster("raft-" + UUID.randomUUID().toString().substring(0, 6), 3, false, options,
                Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.ftDefaults());
        RestartCheck.killRestartAndVerify(cluster, orb, killed);
    }
}
