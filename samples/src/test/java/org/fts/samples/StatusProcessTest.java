package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.replica.Status;
import org.fts.replica.StatusReport.Health;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * {@code fts status} against three replica JVMs: it reads each one's standing through JGroups' probe, and its
 * verdict and exit status follow the group through a crash ({@code kill -9}), the restart, and a lost majority.
 */
class StatusProcessTest {
    private ReplicaCluster cluster;
    private ORB orb;

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private record Answer(int exit, String text) {
    }

    private Answer status() {
        String at = String.join(",", List.of(cluster.probeAddress(0), cluster.probeAddress(1),
                cluster.probeAddress(2)));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int exit = Status.run(new String[] {"--at", at, "--group", cluster.group()},
                new PrintStream(buf, true, StandardCharsets.UTF_8));
        return new Answer(exit, buf.toString(StandardCharsets.UTF_8));
    }

    private Answer awaitHealth(Health h) {
        return awaitHealth(h, "");
    }

    /** Waits for verdict {@code h} with {@code text} in the answer. */
    private Answer awaitHealth(Health h, String text) {
        AtomicReference<Answer> last = new AtomicReference<>();
        Waits.await(() -> {
            last.set(status());
            return last.get().exit() == h.exit && last.get().text().contains(text);
        }, Duration.ofSeconds(60), () -> "status " + h + " with '" + text + "'; last answer:\n" + last.get());
        return last.get();
    }

    @Test
    void statusFollowsTheGroupThroughACrashARestartAndALostMajority() throws Exception {
        cluster = new ReplicaCluster("st-" + UUID.randomUUID().toString().substring(0, 6), 3, false, List.of(),
                Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.ftDefaults());
        Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
        for (int i = 0; i < 10; i++) {
            counter.increment();
        }
        Answer all = awaitHealth(Health.SERVING);
        List<String> replicaLines = all.text().lines().filter(l -> l.contains(" reachable ")).toList();
        assertEquals(3, replicaLines.size(), all.text());
        assertEquals(1, replicaLines.stream().filter(l -> l.contains(" sequencer ")).count(), all.text());
        // the same state everywhere once the group is quiet: one digest
        assertEquals(1, replicaLines.stream().map(l -> l.replaceAll(".*digest=(\\S+).*", "$1")).distinct().count(),
                all.text());
        assertTrue(all.text().contains("SERVING, 3 of 3 replicas serve"), all.text());

        cluster.kill(2);
        Answer two = awaitHealth(Health.RECOVERING);
        assertTrue(two.text().contains("UNREACHABLE (no replica answers at " + cluster.probeAddress(2) + ")"),
                two.text());
        counter.increment();   // the group still answers

        cluster.restart(2, List.of());
        awaitHealth(Health.SERVING);
        assertEquals(12, counter.increment());

        // in memory (fts.durability=memory) a majority must survive: with two of three gone the group stops
        cluster.kill(1);
        cluster.kill(2);
        awaitHealth(Health.MINORITY, "1 of 3 replicas serve");
        // and the survivor itself, once its view shows it alone, says why it does not serve
        awaitHealth(Health.MINORITY, "serving=no: ");
    }

    @Test
    void nothingReachableIsExitThree() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int exit = Status.run(new String[] {"--hosts", "127.0.0.1", "--port", "1", "--range", "0"},
                new PrintStream(buf, true, StandardCharsets.UTF_8));
        assertEquals(Health.UNREACHABLE.exit, exit, buf.toString(StandardCharsets.UTF_8));
    }
}
