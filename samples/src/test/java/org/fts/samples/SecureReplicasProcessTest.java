package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.testing.Recorder;
import org.fts.testing.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;

/**
 * Three replica processes whose group traffic is encrypted (docs/security.md), an FT client, and a rogue process
 * with the group's name but not its key: the rogue stays alone, what it broadcasts executes nowhere, and the
 * replicas end with equal digests and exactly the client's increments.
 */
class SecureReplicasProcessTest {
    @Test
    void aRogueWithoutTheKeyNeitherJoinsNorChangesTheState(@TempDir Path dir) throws Exception {
        Properties key = TestKeys.groupKey(dir, "group");
        List<String> opts = new ArrayList<>();
        key.forEach((k, v) -> opts.add("-D" + k + "=" + v));
        String group = "sec-" + UUID.randomUUID().toString().substring(0, 6);
        ORB orb = ORB.init(new String[0], Clients.ftDefaults());
        try (ReplicaCluster cluster = new ReplicaCluster(group, 3, false, opts, Path.of("target", "child-logs"))) {
            Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
            for (int i = 1; i <= 20; i++) {
                assertEquals(i, counter.increment());
            }
            Properties rogue = new Properties();
            rogue.setProperty("fts.gc", "jgroups");
            rogue.setProperty("fts.jgroups.encrypt", "none");
            rogue.setProperty("fts.jgroups.mcast_port", Integer.toString(cluster.multicastPort()));   // it reaches them
            rogue.setProperty("fts.group.size", "0");   // it orders its own broadcasts, as a forged replica would
            Recorder heard = new Recorder();
            try (GroupChannel r = GroupChannels.create(rogue, "r9#rogue")) {
                r.join(group, heard);
                assertEquals(1, heard.lastView().members().size(), "the rogue is alone: " + heard.lastView());
                for (int i = 0; i < 20; i++) {
                    r.abcast(("forged " + i).getBytes(StandardCharsets.UTF_8));
                }
                heard.awaitDelivered(20, Duration.ofSeconds(30));   // they went out
                for (int i = 21; i <= 40; i++) {
                    assertEquals(i, counter.increment());
                }
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(List.of("r0", "r1", "r2"), cluster.view(i).stream().sorted().toList());
                assertEquals(40, CounterHelper.narrow(orb.string_to_object(Clients.corbaloc("127.0.0.1",
                        cluster.ports().get(i), group, "counter"))).value(), "r" + i + " counts the client's calls");
            }
            List<String> digests = new ArrayList<>();
            org.fts.process.Waits.await(() -> {   // each replica answers at its own position of the order
                digests.clear();
                for (int i = 0; i < 3; i++) {
                    try {
                        digests.add(cluster.digest(i));
                    } catch (java.io.IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return new HashSet<>(digests).size() == 1;
            }, Duration.ofSeconds(30), () -> "the replicas' digests differ: " + digests);
        } finally {
            orb.shutdown(false);
        }
    }
}
