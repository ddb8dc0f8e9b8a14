package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.order.SteppedGroup.Node;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random partitions, stale views, heals and state syncs ({@link SteppedGroup}, N = 3, uniform delivery), each
 * run from a seed. After every run, with every link healed and one view of all: the histories agree (no two
 * members deliver two broadcasts in opposite orders, none delivers one twice, FIFO per sender), uniform
 * delivery lost nothing (what anyone delivered of a sender is a prefix of what it sent, with the rest still
 * to come), and the group is primary again and delivers a last broadcast of every member everywhere.
 */
class TotalOrderRandomPartitionTest {
    private static final List<String> NAMES = List.of("a", "b", "c");

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
            26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40})
    void randomPartitionsKeepOneHistoryAndHealToOnePrimary(long seed) {
        Random rnd = new Random(seed);
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c")) {
            g.view("a", "b");
            g.view("a", "b", "c");
            Map<String, Integer> sent = new HashMap<>();
            Set<String> side = Set.of();
            for (int step = 0; step < 40; step++) {
                int what = rnd.nextInt(10);
                if (what < 4) {
                    String from = NAMES.get(rnd.nextInt(3));
                    int n = 1 + rnd.nextInt(3);
                    g.send(from, n);
                    sent.merge(from, n, Integer::sum);
                } else if (what < 6) {
                    side = randomSide(rnd);
                    g.partition(side);
                    installComponents(g, side, rnd);
                } else if (what < 7) {
                    side = Set.of();
                    g.heal();
                    installComponents(g, side, rnd);
                } else {
                    syncGaps(g, rnd);
                }
            }
            g.heal();
            g.view("a", "b", "c");
            syncGaps(g, new Random(0) {
                @Override
                public boolean nextBoolean() {
                    return true;
                }
            });
            for (String n : NAMES) {
                g.send(n, 1);
                sent.merge(n, 1, Integer::sum);
            }
            check(g, sent, seed);
        }
    }

    /** Two sides (or one member alone); each side installs its own view, possibly leaving one member stale. */
    private static Set<String> randomSide(Random rnd) {
        int k = rnd.nextInt(4);
        return k == 3 ? Set.of() : Set.of(NAMES.get(k));
    }

    private static void installComponents(SteppedGroup g, Set<String> side, Random rnd) {
        List<String> rest = new ArrayList<>(NAMES);
        rest.removeAll(side);
        List<List<String>> components = new ArrayList<>();
        if (!side.isEmpty()) {
            components.add(new ArrayList<>(side));
        }
        components.add(rest);
        for (List<String> c : components) {
            java.util.Collections.shuffle(c, rnd);   // any member may coordinate
            List<String> installers = new ArrayList<>(c);
            if (c.size() > 1 && rnd.nextInt(5) == 0) {
                installers.remove(installers.size() - 1);   // one member misses the view: it still believes
            }
            if (installers.isEmpty()) {
                continue;
            }
            installAt(g, c, installers);
        }
    }

    /** Installs a view of {@code members} at {@code installers} only. */
    private static void installAt(SteppedGroup g, List<String> members, List<String> installers) {
        if (installers.size() == members.size()) {
            g.view(members.toArray(String[]::new));
            return;
        }
        g.viewAt(members, installers);
    }

    /** Members whose latest epoch has a gap got the state: they say so (some of them, at random). */
    private static void syncGaps(SteppedGroup g, Random rnd) {
        for (Node n : g.alive()) {
            Epoch last = n.recorder.lastEpoch();
            if (last != null && rnd.nextBoolean()) {
                n.order.synced();
            }
        }
    }

    private static void check(SteppedGroup g, Map<String, Integer> sent, long seed) {
        Map<String, List<String>> seqs = new HashMap<>();
        for (String n : NAMES) {
            g.node(n).recorder.awaitState(r -> r.deliveredUnsafe().stream().anyMatch(
                            d -> d.text().equals("a:" + (sent.get("a") - 1)))
                            && r.deliveredUnsafe().stream().anyMatch(d -> d.text().equals("b:" + (sent.get("b") - 1)))
                            && r.deliveredUnsafe().stream().anyMatch(d -> d.text().equals("c:" + (sent.get("c") - 1))),
                    SteppedGroup.WAIT, () -> "seed " + seed + ": " + n + " delivers every member's last broadcast; "
                            + "epochs " + g.node(n).recorder.epochs() + " not primary "
                            + g.node(n).recorder.notPrimaryReasons());
            seqs.put(n, g.node(n).texts());
        }
        Map<String, Integer> position = new HashMap<>();
        for (String n : NAMES) {
            List<String> s = seqs.get(n);
            assertEquals(s.size(), new HashSet<>(s).size(), "seed " + seed + ": " + n + " delivered one twice: " + s);
            Map<String, Integer> next = new HashMap<>();
            for (String t : s) {
                String origin = t.split(":")[0];
                int k = Integer.parseInt(t.split(":")[1]);
                assertTrue(k >= next.getOrDefault(origin, 0), "seed " + seed + ": FIFO of " + origin + " at " + n + ": " + s);
                next.put(origin, k + 1);
            }
        }
        // No two members deliver two broadcasts in opposite orders.
        for (String x : NAMES) {
            for (String y : NAMES) {
                List<String> sx = seqs.get(x);
                List<String> sy = seqs.get(y);
                Map<String, Integer> py = new HashMap<>();
                for (int i = 0; i < sy.size(); i++) {
                    py.put(sy.get(i), i);
                }
                int last = -1;
                for (String t : sx) {
                    Integer p = py.get(t);
                    if (p != null) {
                        if (p < last) {
                            fail("seed " + seed + ": " + x + " and " + y + " disagree on the order around " + t
                                    + "\n" + x + ": " + sx + "\n" + y + ": " + sy);
                        }
                        last = p;
                    }
                }
            }
        }
        // Uniform delivery loses nothing: what anyone delivered of each sender is a prefix of what it sent.
        for (String origin : NAMES) {
            Set<Integer> seen = new HashSet<>();
            seqs.values().forEach(s -> s.stream().filter(t -> t.startsWith(origin + ":"))
                    .forEach(t -> seen.add(Integer.parseInt(t.split(":")[1]))));
            for (int k = 0; k < sent.get(origin); k++) {
                assertTrue(seen.contains(k), "seed " + seed + ": " + origin + ":" + k + " was never delivered: " + seqs);
            }
        }
        position.clear();
    }
}
