package org.fts.loadtest.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps {@code bin/fts load} honest end to end: real JacORB servers answer the driver's hand-made GIOP requests
 * (with FT_REQUEST and FT_GROUP_VERSION), a plain server and a 3-replica group, in a closed and an open loop; every
 * point has answers, no errors, ordered percentiles and CPU figures; and servers the driver did not start are found
 * by their listening port.
 */
class LoadDriverSmokeTest {
    private static final boolean LINUX = Files.isDirectory(Path.of("/proc/self"));

    @Test
    @Timeout(300)
    void plainAndReplicatedServersAnswerEveryCallInBothLoops(@TempDir Path dir) throws Exception {
        LoadOptions o = LoadOptions.parse(new String[] {"--targets", "plain,fts", "--connections", "1,4", "--mode",
            "closed,open", "--rate", "50%", "--seconds", "1", "--warmup", "0.5", "--server-warmup", "2", "--ft"});
        List<Measurement> ms = LoadMain.run(o, dir);
        assertEquals(8, ms.size(), "2 targets x 2 connection counts x 2 modes: " + ms);
        for (Measurement m : ms) {
            String what = m.line();
            assertTrue(m.callsPerSecond() > 0, what);
            assertEquals(0, m.errors(), what);
            assertEquals(0, m.deadConnections(), what);
            assertTrue(m.p50Us() > 0 && m.p50Us() <= m.p99Us() && m.p99Us() <= m.p999Us() && m.p999Us() <= m.maxUs(),
                    "ordered percentiles: " + what);
            assertTrue(m.driverCpuUsPerCall() > 0, what);
            if (LINUX) {
                assertTrue(m.serverCpuUsPerCall() > 0, "the servers' CPU from /proc: " + what);
                String[] wakeups = m.wakeups().split("/");
                assertEquals(m.target().equals("fts") ? 3 : 1, wakeups.length, "each server's wake-ups: " + what);
                for (String w : wakeups) {
                    assertTrue(Double.parseDouble(w) > 0, "every server's threads woke to serve the calls: " + what);
                }
            }
        }
        for (int c : List.of(1, 4)) {
            double plainRate = find(ms, "plain", c, "closed").callsPerSecond();
            for (String t : List.of("plain", "fts")) {
                assertEquals(plainRate / 2, find(ms, t, c, "open").offeredRate(), 1e-6,
                        "the open loop is offered half of plain's closed-loop rate in the same run");
            }
        }
        List<String> csv = Files.readAllLines(dir.resolve("load.csv"));
        assertEquals(Measurement.HEADER, csv.get(0));
        assertEquals(ms.stream().map(LoadDriverSmokeTest::identity).toList(),
                csv.subList(1, csv.size()).stream().map(Measurement::parse).map(LoadDriverSmokeTest::identity).toList(),
                "load.csv holds every point");
    }

    @Test
    @Timeout(120)
    void serversItDidNotStartAreFoundByTheirListeningPort(@TempDir Path dir) throws Exception {
        try (ReplicaCluster server = new ReplicaCluster("attach", 0, true, List.of(), dir)) {
            Target t = Target.attach(server.reference("hello"), "spread", List.of());
            if (LINUX) {
                assertEquals(List.of(server.pid(0)), t.pids());
            }
            LoadOptions o = LoadOptions.parse(new String[] {"--ior", server.reference("hello"), "--connections", "2",
                "--seconds", "0.5", "--warmup", "0.2"});
            Measurement m = LoadMain.measure(t, 2, LoadRun.Mode.CLOSED, 0, 1, o, "attached");
            assertTrue(m.callsPerSecond() > 0 && m.errors() == 0, m.line());
        }
    }

    private static String identity(Measurement m) {
        return m.target() + "/" + m.connections() + "/" + m.mode() + "/" + m.run() + "/" + m.errors() + "/"
                + m.wakeups();
    }

    private static Measurement find(List<Measurement> ms, String target, int connections, String mode) {
        return ms.stream().filter(m -> m.target().equals(target) && m.connections() == connections
                && m.mode().equals(mode)).findFirst().orElseThrow(() -> new AssertionError(target + "/" + connections
                + "/" + mode + " not measured"));
    }
}
