package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;

import org.fts.process.ChildJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * JGroups members as separate JVMs on 127.0.0.1, killed with a real {@code kill -9} mid-traffic: the
 * survivors agree on one sequence and deliver every message of every surviving sender exactly once.
 */
class JGroupsProcessCrashTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final List<ChildJvm> children = new ArrayList<>();

    @AfterEach
    void reap() {
        children.forEach(ChildJvm::close);
    }

    @Test
    void killMinus9OfAMemberMidTraffic() throws Exception {
        run(List.of("a", "b", "c"), List.of("c"), 3_000);
    }

    @Test
    void killMinus9OfTheCoordinatorMidTraffic() throws Exception {
        run(List.of("a", "b", "c"), List.of("a"), 3_000);
    }

    @Test
    void killMinus9OfTwoSequencersInTurn() throws Exception {
        // Long enough that the second sequencer is still sending when it dies (detection takes ~2 s).
        run(List.of("a", "b", "c", "d"), List.of("a", "b"), 8_000);
    }

    private void run(List<String> names, List<String> victims, int count) throws Exception {
        try {
            killMidTraffic(names, victims, count);
        } catch (AssertionError | IllegalStateException e) {   // a failed check or a timed-out wait
            children.forEach(ChildJvm::requestThreadDump);   // into target/child-logs/*.out
            throw e;
        }
    }

    /** Each member broadcasts {@code count} messages at 1500/s; the victims are killed in turn. */
    private void killMidTraffic(List<String> names, List<String> victims, int count) throws Exception {
        String group = "proc-" + UUID.randomUUID().toString().substring(0, 8);
        for (String n : names) {
            ChildJvm c = ChildJvm.start(group + "-" + n, GroupMemberProcess.class,
                    List.of("-Xmx256m", "-Djava.net.preferIPv4Stack=true", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"),
                    group, n, "udp", Integer.toString(names.size()), Integer.toString(count), "1500");
            children.add(c);
            // Start in order, each one in the view before the next: the first is the coordinator.
            c.awaitLine(l -> l.startsWith("VIEW ") && l.contains(n), WAIT, n + " in a view");
        }
        List<String> alive = new ArrayList<>(names);
        for (String victim : victims) {
            ChildJvm observer = child(alive.stream().filter(n -> !victims.contains(n)).findFirst().orElseThrow());
            long before = deliveries(observer).size();
            observer.awaitLines(l -> deliveries(l).size() >= before + 900 ? true : null, WAIT,
                    "900 more deliveries before killing " + victim);
            child(victim).kill9();
            alive.remove(victim);
            for (String s : alive) {
                child(s).awaitLine(l -> isViewOf(l, alive), WAIT, "a view of " + alive);
            }
        }
        for (String s : alive) {
            child(s).awaitLines(lines -> {
                for (String n : alive) {
                    if (!lines.contains("D " + n + " " + n + ":" + (count - 1))) {
                        return null;
                    }
                }
                return true;
            }, WAIT, "every survivor's last message");
        }
        // Every surviving sender is done; the survivors' sequences must be identical.
        ChildJvm first = child(alive.get(0));
        for (String s : alive) {
            child(s).awaitLines(l -> deliveries(l).size() >= deliveries(first).size() ? true : null,
                    Duration.ofSeconds(10), "as many deliveries as " + first.name());
        }
        List<String> seq = deliveries(first);
        for (String s : alive) {
            assertEquals(seq, deliveries(child(s)), "the sequence at " + s + " equals the one at " + alive.get(0));
        }
        assertEquals(seq.size(), new HashSet<>(seq).size(), "no duplicates");
        for (String n : names) {
            long got = seq.stream().filter(d -> d.startsWith("D " + n + " ")).count();
            if (victims.contains(n)) {
                assertTrue(got < count, "victim " + n + " died before sending everything (" + got + ")");
            } else {
                assertEquals(count, got, "every message of survivor " + n + " exactly once");
            }
        }
    }

    private ChildJvm child(String name) {
        return children.stream().filter(c -> c.name().endsWith("-" + name)).findFirst().orElseThrow();
    }

    private static boolean isViewOf(String line, List<String> members) {
        if (!line.startsWith("VIEW ")) {
            return false;
        }
        List<String> m = List.of(line.split(" ")[2].split(","));
        return m.size() == members.size() && m.containsAll(members);
    }

    private static List<String> deliveries(ChildJvm c) {
        return deliveries(c.lines());
    }

    private static List<String> deliveries(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("D ")).toList();
    }
}
