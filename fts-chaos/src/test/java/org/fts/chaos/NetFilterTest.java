package org.fts.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The iptables commands of the network nemeses, against a fake iptables that keeps its rules as
 * {@code iptables -S} prints them: no iptables and no root needed.
 */
class NetFilterTest {
    /** A dead pid: Linux pids stay below 2^22. */
    private static final long DEAD = 999_999_999L;
    private static final long PID = 4242;

    /** The filter table as {@code -S} lines; records every command (without {@code -w N}). */
    private static final class FakeIptables implements NetFilter.Runner {
        final List<String> rules = new ArrayList<>(List.of("-P INPUT ACCEPT", "-P OUTPUT ACCEPT", "-N DOCKER",
                "-N FTS-OTHER", "-A OUTPUT -j DOCKER", "-A DOCKER -s 127.0.0.2/32 -j DROP"));
        final List<String> commands = new ArrayList<>();

        @Override
        public List<String> run(List<String> command) {
            assertEquals(List.of("-w", "5"), command.subList(0, 2), "every command waits for the lock, bounded");
            List<String> a = command.subList(2, command.size());
            String line = String.join(" ", a);
            if (!line.equals("-S")) {
                commands.add(line);
            }
            String chain = a.size() > 1 ? a.get(1) : "";
            switch (a.get(0)) {
                case "-S" -> {
                    return List.copyOf(rules);
                }
                case "-N" -> rules.add(line);
                case "-A" -> rules.add(line);
                case "-I" -> rules.add("-A " + chain + " " + String.join(" ", a.subList(3, a.size())));
                case "-D" -> assertTrue(rules.remove("-A" + line.substring(2)), line);
                case "-F" -> rules.removeIf(r -> r.startsWith("-A " + chain + " "));
                case "-X" -> {
                    assertTrue(rules.stream().noneMatch(r -> r.startsWith("-A " + chain + " ")
                            || r.endsWith("-j " + chain)), "a chain is deleted empty and unreferenced");
                    assertTrue(rules.remove("-N " + chain), line);
                }
                default -> throw new AssertionError(line);
            }
            return List.of();
        }
    }

    @Test
    void rulesDropOnlyBetweenTwoReplicaAddressesOneWay() {
        assertEquals(List.of("-A", "FTS-CHAOS-1", "-s", "127.0.0.2/32", "-d", "127.0.0.3/32", "-j", "DROP"),
                NetFilter.cutRule("FTS-CHAOS-1", "127.0.0.2", "127.0.0.3"));
        assertEquals(List.of("-A", "FTS-CHAOS-1", "-s", "127.0.0.4/32", "-d", "127.0.0.2/32", "-m", "statistic",
                "--mode", "random", "--probability", "0.20", "-j", "DROP"),
                NetFilter.lossyRule("FTS-CHAOS-1", "127.0.0.4", "127.0.0.2", 20));
        assertEquals("0.05", NetFilter.lossyRule("c", "a", "b", 5).get(11));
        assertEquals("0.50", NetFilter.lossyRule("c", "a", "b", 50).get(11));
        assertThrows(IllegalArgumentException.class, () -> NetFilter.lossyRule("c", "a", "b", 100));
        List<String> listed = List.of("-A OUTPUT -j FTS-CHAOS-7", "-A OUTPUT -j FTS-CHAOS-77",
                "-A FTS-CHAOS-7 -s 1/32 -j DROP");
        assertEquals(List.of(List.of("-D", "OUTPUT", "-j", "FTS-CHAOS-7")), NetFilter.jumpsTo(listed, "FTS-CHAOS-7"));
        assertEquals(List.of("FTS-CHAOS-7"), NetFilter.chains(List.of("-N FTS-CHAOS-7", "-N FTS-OTHER", "-N DOCKER")));
        assertEquals(7, NetFilter.ownerOf("FTS-CHAOS-7"));
        assertEquals(-1, NetFilter.ownerOf("FTS-CHAOS-x"));
    }

    @Test
    void itRemovesADeadRunsChainInstallsItsOwnAndRemovesItAtTheEnd() throws Exception {
        FakeIptables ipt = new FakeIptables();
        ipt.rules.addAll(List.of("-N FTS-CHAOS-" + DEAD, "-A OUTPUT -j FTS-CHAOS-" + DEAD,
                "-A FTS-CHAOS-" + DEAD + " -s 127.0.0.2/32 -d 127.0.0.3/32 -j DROP"));
        List<String> untouched = ipt.rules.subList(0, 6).stream().toList();
        List<String> log = new ArrayList<>();
        NetFilter f = NetFilter.open(ipt, log::add, PID);
        String c = "FTS-CHAOS-" + PID;
        assertEquals(c, f.chain());
        assertEquals(List.of("-D OUTPUT -j FTS-CHAOS-" + DEAD, "-F FTS-CHAOS-" + DEAD, "-X FTS-CHAOS-" + DEAD,
                "-N " + c, "-I OUTPUT 1 -j " + c), ipt.commands);
        assertEquals(1, ipt.rules.stream().filter(r -> r.equals("-A OUTPUT -j " + c)).count(), "hooked once");

        f.cut("127.0.0.2", "127.0.0.3");
        f.lossy("127.0.0.3", "127.0.0.4", 50);
        assertTrue(ipt.rules.contains("-A " + c + " -s 127.0.0.2/32 -d 127.0.0.3/32 -j DROP"), ipt.rules::toString);
        assertTrue(ipt.rules.contains("-A " + c + " -s 127.0.0.3/32 -d 127.0.0.4/32 -m statistic --mode random "
                + "--probability 0.50 -j DROP"), ipt.rules::toString);
        f.restore();
        assertTrue(ipt.rules.stream().noneMatch(r -> r.startsWith("-A " + c + " ")), "restore empties the chain");
        f.cut("127.0.0.4", "127.0.0.2");
        f.close();
        f.close();   // idempotent
        assertEquals(untouched, ipt.rules, "nothing of the harness left, nothing else touched");
        assertThrows(java.io.IOException.class, () -> f.cut("127.0.0.2", "127.0.0.3"), "closed");
        assertTrue(log.stream().anyMatch(l -> l.equals("iptables -w 5 -I OUTPUT 1 -j " + c)), log::toString);
        assertTrue(log.stream().anyMatch(l -> l.contains("FTS-CHAOS-" + DEAD + ", left by a run that died")));
        assertEquals(ipt.commands.size() + 1, log.size(), "every command logged, and the stale chain's removal");
    }

    @Test
    void aLiveRunsChainStopsTheStartAndIsLeftAlone() {
        long live = ProcessHandle.current().parent().orElseThrow().pid();
        FakeIptables ipt = new FakeIptables();
        ipt.rules.addAll(List.of("-N FTS-CHAOS-" + live, "-A OUTPUT -j FTS-CHAOS-" + live));
        NetFilter.Unavailable e = assertThrows(NetFilter.Unavailable.class, () -> NetFilter.open(ipt, l -> { }, PID));
        assertTrue(e.getMessage().contains("another chaos run (pid " + live + ")"), e::getMessage);
        assertEquals(List.of(), ipt.commands);
    }
}
