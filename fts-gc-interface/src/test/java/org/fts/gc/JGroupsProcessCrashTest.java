package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.fts.testing.ChildProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * JGroups members as separate JVMs on 127.0.0.1, one killed with a real {@code kill -9} mid-traffic:
 * the survivors agree on one sequence and deliver every message of every surviving sender exactly once.
 */
class JGroupsProcessCrashTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int COUNT = 3_000;
    private final List<ChildProcess> children = new ArrayList<>();

    @AfterEach
    void reap() {
        children.forEach(ChildProcess::close);
    }

    @Test
    void killMinus9OfAMemberMidTraffic() throws Exception {
        killMidTraffic(2);
    }

    @Test
    void killMinus9OfTheCoordinatorMidTraffic() throws Exception {
        killMidTraffic(0);
    }

    private void killMidTraffic(int victimIndex) throws Exception {
        try {
            runKillMidTraffic(victimIndex);
        } catch (AssertionError e) {
            children.forEach(ChildProcess::requestThreadDump);   // into target/child-logs/*.out
            throw e;
        }
    }

    private void runKillMidTraffic(int victimIndex) throws Exception {
        String group = "proc-" + UUID.randomUUID().toString().substring(0, 8);
        String[] names = {"a", "b", "c"};
        for (String n : names) {
            ChildProcess c = ChildProcess.start(group + "-" + n, GroupMemberProcess.class,
                    List.of("-Xmx256m", "-Djava.net.preferIPv4Stack=true", "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"),
                    group, n, "udp", "3", Integer.toString(COUNT), "1500");
            children.add(c);
            // Start in order, each one in the view before the next: a is the coordinator.
            c.awaitLine(l -> l.startsWith("VIEW ") && l.contains(n), WAIT, n + " in a view");
        }
        ChildProcess victim = children.get(victimIndex);
        List<ChildProcess> survivors = new ArrayList<>(children);
        survivors.remove(victim);
        survivors.get(0).awaitLines(l -> l.stream().filter(x -> x.startsWith("D ")).count() >= 900 ? true : null,
                WAIT, "900 deliveries before the kill");
        victim.kill9();

        String victimName = names[victimIndex];
        for (ChildProcess s : survivors) {
            s.awaitLine(l -> l.startsWith("VIEW ") && l.split(" ")[2].split(",").length == 2
                    && !List.of(l.split(" ")[2].split(",")).contains(victimName), WAIT, "a view without " + victimName);
            s.awaitLines(lines -> {
                for (String n : names) {
                    if (!n.equals(victimName) && !lines.contains("D " + n + " " + n + ":" + (COUNT - 1))) {
                        return null;
                    }
                }
                return true;
            }, WAIT, "every survivor's last message");
        }
        List<String> seq0 = deliveries(survivors.get(0));
        List<String> seq1 = deliveries(survivors.get(1));
        // Identical sequences (a late victim message, if any, is still settled by now; allow it to land).
        survivors.get(1).awaitLines(l -> deliveries(l).size() >= seq0.size() ? true : null, Duration.ofSeconds(10),
                "the same number of deliveries as " + survivors.get(0).name());
        survivors.get(0).awaitLines(l -> deliveries(l).size() >= deliveries(survivors.get(1)).size() ? true : null,
                Duration.ofSeconds(10), "the same number of deliveries as " + survivors.get(1).name());
        assertEquals(deliveries(survivors.get(0)), deliveries(survivors.get(1)), "survivors' sequences");
        List<String> seq = deliveries(survivors.get(0));
        Set<String> unique = new HashSet<>(seq);
        assertEquals(seq.size(), unique.size(), "no duplicates");
        for (String n : names) {
            long got = seq.stream().filter(d -> d.startsWith("D " + n + " ")).count();
            if (n.equals(victimName)) {
                assertTrue(got < COUNT, "the victim died before sending everything (" + got + ")");
            } else {
                assertEquals(COUNT, got, "every message of survivor " + n + " exactly once");
            }
        }
        assertTrue(seq1.size() <= seq.size());
    }

    private static List<String> deliveries(ChildProcess c) {
        return deliveries(c.lines());
    }

    private static List<String> deliveries(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("D ")).toList();
    }
}
