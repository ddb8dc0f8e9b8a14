package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The protocol simulator ({@link ProtocolSimulator}, docs/simulator.md) over a fixed range of seeds: the real
 * {@link TotalOrder} under random partitions, JGroups-like views, crashes within the fault model, restarts and
 * state transfers, with agreement, no holes, uniform durability, exactly once, FIFO and liveness after the heal
 * checked at every step. {@code -Dfts.sim.start=S -Dfts.sim.seeds=N} run another range; {@code bin/fts simulate
 * --replay SEED} replays one seed step by step.
 *
 * <p>The seeds in {@link #KNOWN_3} and {@link #KNOWN_5} break an invariant on the protocol as it is (protocol
 * bugs, not modelling errors: docs/simulator.md, "Findings", gives each mechanism and a short schedule). The range
 * tests require every other seed to pass and every known seed still to fail (so that the lists stay exact: a
 * change to the protocol or the simulator changes the schedules, and the failure message prints the new list);
 * {@link #theKnownViolatingSeedsPass} requires them to pass, and is disabled until the protocol is fixed.
 */
class ProtocolSimulationTest {
    private static final long START = Long.getLong("fts.sim.start", 1);

    /** N = 3, seeds 1..2000, 300 steps: 234 seeds break an invariant (mechanisms A, B, D). */
    static final String KNOWN_3 = """
            4, 8, 9, 12, 23, 29, 34, 36, 46, 58, 77, 94, 97, 101, 108, 119, 136, 137, 138, 145, 154, 158, 172, 178,
            180, 206, 208, 209, 217, 253, 257, 275, 285, 303, 332, 333, 343, 349, 350, 352, 359, 361, 364, 368, 369,
            374, 381, 388, 392, 399, 400, 405, 423, 434, 442, 443, 476, 484, 485, 494, 500, 512, 515, 552, 566, 573,
            574, 578, 584, 599, 604, 620, 626, 632, 638, 654, 660, 662, 685, 686, 703, 715, 718, 720, 729, 736, 754,
            767, 769, 771, 775, 776, 777, 782, 816, 817, 824, 825, 827, 861, 865, 888, 893, 897, 899, 902, 926, 929,
            930, 935, 937, 941, 944, 951, 953, 963, 989, 991, 993, 1002, 1003, 1008, 1011, 1025, 1042, 1044, 1045,
            1053, 1054, 1078, 1081, 1089, 1104, 1117, 1136, 1141, 1143, 1144, 1147, 1173, 1177, 1197, 1202, 1206,
            1214, 1217, 1235, 1243, 1248, 1260, 1271, 1301, 1312, 1317, 1318, 1349, 1351, 1357, 1361, 1362, 1368,
            1377, 1384, 1391, 1406, 1411, 1420, 1423, 1427, 1431, 1439, 1463, 1468, 1471, 1472, 1494, 1496, 1497,
            1499, 1507, 1512, 1528, 1534, 1545, 1552, 1556, 1562, 1563, 1564, 1571, 1575, 1599, 1606, 1609, 1612,
            1634, 1642, 1695, 1696, 1708, 1719, 1729, 1738, 1744, 1759, 1791, 1792, 1802, 1808, 1809, 1813, 1822,
            1823, 1829, 1870, 1871, 1878, 1883, 1892, 1893, 1896, 1898, 1901, 1906, 1908, 1916, 1922, 1928, 1960,
            1971, 1973, 1976, 1985, 1998""";

    /** N = 5, seeds 1..500, 300 steps: 22 seeds break an invariant (mechanisms B, D). */
    static final String KNOWN_5 = """
            16, 18, 43, 65, 101, 193, 215, 216, 250, 277, 279, 306, 342, 352, 361, 362, 383, 397, 407, 473, 481, 485""";

    @Test
    void threeReplicasOverTwoThousandSeeds() {
        range(3, Long.getLong("fts.sim.seeds", 2000), KNOWN_3);
    }

    @Test
    void fiveReplicasOverFiveHundredSeeds() {
        range(5, Long.getLong("fts.sim.seeds", 500), KNOWN_5);
    }

    @Disabled("the protocol bugs of docs/simulator.md, Findings: enable once they are fixed (and empty the lists)")
    @Test
    void theKnownViolatingSeedsPass() {
        List<ProtocolSimulator.Result> failed = new ArrayList<>();
        for (long s : seeds(KNOWN_3)) {
            check(failed, ProtocolSimulator.run(s, ProtocolSimulator.Options.of(3)));
        }
        for (long s : seeds(KNOWN_5)) {
            check(failed, ProtocolSimulator.run(s, ProtocolSimulator.Options.of(5)));
        }
        if (!failed.isEmpty()) {
            fail(failed.size() + " known seeds still break an invariant: " + byInvariant(failed) + "\n"
                    + failed.get(0).report());
        }
    }

    private static void check(List<ProtocolSimulator.Result> failed, ProtocolSimulator.Result r) {
        if (!r.ok()) {
            failed.add(r);
        }
    }

    private static void range(int replicas, long count, String known) {
        Set<Long> expected = Arrays.stream(seeds(known)).boxed().collect(Collectors.toSet());
        ProtocolSimulator.Options options = ProtocolSimulator.Options.of(replicas);
        List<ProtocolSimulator.Result> unexpected = new ArrayList<>();
        List<ProtocolSimulator.Result> knownFailed = new ArrayList<>();
        List<Long> nowPass = new ArrayList<>();
        List<Long> allFailing = new ArrayList<>();
        long t0 = System.nanoTime();
        for (long s = START; s < START + count; s++) {
            ProtocolSimulator.Result r = ProtocolSimulator.run(s, options);
            if (!r.ok()) {
                allFailing.add(s);
                (expected.contains(s) ? knownFailed : unexpected).add(r);
            } else if (expected.contains(s)) {
                nowPass.add(s);
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("ProtocolSimulationTest: N=%d, seeds %d..%d, %d steps: %.1f s (%.0f seeds/s); %d known "
                        + "violations %s%n", replicas, START, START + count - 1, options.steps(), secs, count / secs,
                knownFailed.size(), byInvariant(knownFailed));
        if (!unexpected.isEmpty()) {
            fail(unexpected.size() + " seeds break an invariant: " + unexpected.stream().map(ProtocolSimulator.Result::seed)
                    .toList() + " " + byInvariant(unexpected) + "\n" + unexpected.get(0).report()
                    + "\nall failing seeds now: " + allFailing);
        }
        if (!nowPass.isEmpty()) {
            fail("known violating seeds now pass: " + nowPass + "; the failing seeds of this range are now: "
                    + allFailing);
        }
    }

    private static String byInvariant(List<ProtocolSimulator.Result> results) {
        return results.stream().collect(Collectors.groupingBy(ProtocolSimulator.Result::invariant, TreeMap::new,
                Collectors.counting())).toString();
    }

    private static long[] seeds(String list) {
        return Arrays.stream(list.split("[,\\s]+")).filter(t -> !t.isEmpty()).mapToLong(Long::parseLong).toArray();
    }
}
