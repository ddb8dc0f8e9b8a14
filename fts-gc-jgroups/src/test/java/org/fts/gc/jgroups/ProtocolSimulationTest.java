package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * The protocol simulator ({@link ProtocolSimulator}, docs/simulator.md) over a fixed range of seeds: the real
 * {@link TotalOrder} under random partitions, JGroups-like views, crashes within the fault model, restarts and
 * state transfers, with agreement, no holes, uniform durability, exactly once, FIFO and liveness after the heal
 * checked at every step. {@code -Dfts.sim.start=S -Dfts.sim.seeds=N} run another range; {@code bin/fts simulate
 * --replay SEED} replays one seed step by step.
 *
 * <p>No seed may break a safety invariant. The seeds in {@link #KNOWN_3} and {@link #KNOWN_5} end with the group
 * not primary for good on the protocol as it is (a liveness bug, not a modelling error: docs/simulator.md,
 * "Findings", B). The range tests require every other seed to pass and every known seed still to fail, so that
 * the lists stay exact: a change to the protocol or the simulator changes the schedules, and the failure message
 * prints the new list. Fixing B empties them.
 */
class ProtocolSimulationTest {
    private static final long START = Long.getLong("fts.sim.start", 1);
    /** The invariants a known seed may break: progress after the heal. Safety (agreement, durability...) never. */
    private static final Set<String> LIVENESS = Set.of("liveness", "served");

    /** N = 3, seeds 1..2000, 300 steps: 245 seeds end not primary for good (liveness only; docs/simulator.md, B). */
    static final String KNOWN_3 = """
            8, 26, 28, 39, 46, 58, 62, 97, 101, 108, 117, 119, 130, 136, 143, 158, 164, 171, 183, 189, 199,
            204, 210, 223, 224, 246, 257, 275, 285, 313, 328, 331, 332, 340, 346, 359, 360, 361, 364, 374,
            389, 399, 400, 406, 414, 430, 439, 440, 442, 443, 467, 475, 476, 484, 491, 514, 549, 559, 566,
            573, 577, 578, 581, 592, 596, 602, 604, 620, 628, 644, 654, 681, 685, 686, 687, 707, 711, 715,
            719, 720, 724, 739, 743, 754, 766, 767, 768, 769, 771, 772, 775, 779, 792, 807, 810, 816, 836,
            838, 874, 888, 893, 897, 915, 920, 922, 926, 928, 935, 937, 941, 944, 950, 953, 963, 966, 974,
            980, 989, 993, 1003, 1007, 1011, 1021, 1027, 1052, 1054, 1055, 1056, 1057, 1059, 1066, 1071,
            1078, 1086, 1090, 1097, 1100, 1104, 1128, 1132, 1141, 1144, 1145, 1147, 1163, 1189,
            1191, 1202, 1211, 1216, 1217, 1226, 1228, 1235, 1248, 1249, 1261, 1268, 1271, 1274, 1275, 1281,
            1289, 1291, 1301, 1309, 1320, 1324, 1340, 1351, 1352, 1361, 1382, 1383, 1406, 1422, 1425, 1427,
            1447, 1454, 1468, 1472, 1496, 1501, 1508, 1530, 1534, 1542, 1543, 1545, 1552, 1553, 1556, 1566,
            1571, 1572, 1577, 1584, 1599, 1620, 1634, 1635, 1644, 1656, 1688, 1696, 1699, 1712, 1738, 1744,
            1759, 1765, 1776, 1805, 1808, 1813, 1814, 1822, 1825, 1827, 1829, 1831, 1848, 1855, 1870, 1881,
            1899, 1901, 1908, 1915, 1916, 1920, 1922, 1926, 1930, 1933, 1934, 1953, 1960, 1961, 1962, 1973,
            1984, 1992, 1993""";

    /** N = 5, seeds 1..500, 300 steps: 9 seeds end not primary for good (liveness only; docs/simulator.md, B). */
    static final String KNOWN_5 = """
            101, 104, 147, 250, 262, 342, 408, 481, 485""";

    /**
     * Offload ordering ({@code fts.gc.jgroups.ordering=offload}), N = 3, seeds 1..2000: 299 seeds end not primary for
     * good, every one of them the same finding B (the schedules differ from sequencer ordering's: more messages).
     */
    static final String KNOWN_3_OFFLOAD = """
            8, 12, 26, 37, 38, 46, 61, 72, 82, 87, 97, 101, 102, 104, 108, 117, 125, 134, 137, 138, 143,
            145, 158, 164, 165, 172, 194, 212, 218, 221, 222, 224, 231, 233, 246, 257, 264, 268, 275, 281,
            293, 313, 322, 323, 328, 336, 341, 348, 368, 381, 385, 412, 414, 419, 423, 432, 439, 442, 443,
            446, 447, 464, 466, 468, 470, 475, 476, 485, 496, 505, 534, 546, 549, 554, 557, 575, 577, 578,
            583, 591, 592, 603, 609, 612, 613, 616, 620, 624, 626, 639, 641, 650, 657, 664, 679, 685, 686,
            703, 704, 707, 715, 718, 720, 722, 724, 725, 729, 734, 739, 753, 754, 759, 765, 766, 767, 771,
            772, 775, 776, 777, 782, 785, 790, 795, 800, 810, 816, 824, 838, 859, 868, 874, 888, 890, 893,
            897, 902, 922, 926, 928, 937, 938, 944, 950, 953, 966, 974, 980, 989, 993, 1003, 1004, 1028,
            1043, 1052, 1053, 1054, 1057, 1064, 1071, 1074, 1080, 1083, 1095, 1097, 1117, 1126, 1128, 1134,
            1139, 1144, 1163, 1168, 1175, 1184, 1191, 1193, 1200, 1202, 1220, 1225, 1226, 1232, 1236, 1262,
            1285, 1286, 1292, 1301, 1302, 1307, 1309, 1313, 1340, 1355, 1361, 1366, 1368, 1372, 1376, 1377,
            1382, 1384, 1393, 1406, 1413, 1414, 1423, 1429, 1438, 1443, 1447, 1468, 1472, 1497, 1500, 1508,
            1509, 1513, 1515, 1521, 1523, 1525, 1526, 1531, 1534, 1540, 1543, 1545, 1550, 1563, 1570, 1584,
            1587, 1588, 1591, 1598, 1599, 1617, 1620, 1629, 1631, 1653, 1656, 1670, 1678, 1680, 1688, 1698,
            1711, 1720, 1723, 1726, 1744, 1754, 1759, 1772, 1795, 1798, 1804, 1805, 1808, 1811, 1814, 1836,
            1838, 1842, 1846, 1849, 1855, 1857, 1861, 1864, 1867, 1870, 1871, 1875, 1878, 1880, 1881, 1895,
            1906, 1908, 1910, 1922, 1924, 1928, 1934, 1945, 1946, 1948, 1950, 1951, 1960, 1961, 1971, 1981,
            1990, 1991""";

    /** Offload ordering, N = 5, seeds 1..500: finding B only. */
    static final String KNOWN_5_OFFLOAD = """
            53, 62, 181, 183, 236, 250, 254, 342, 389, 414, 453, 466""";

    @Test
    void threeReplicasOverTwoThousandSeeds() {
        range(3, Long.getLong("fts.sim.seeds", 2000), KNOWN_3, Ordering.SEQUENCER);
    }

    @Test
    void fiveReplicasOverFiveHundredSeeds() {
        range(5, Long.getLong("fts.sim.seeds", 500), KNOWN_5, Ordering.SEQUENCER);
    }

    @Test
    void offloadThreeReplicasOverTwoThousandSeeds() {
        range(3, Long.getLong("fts.sim.seeds", 2000), KNOWN_3_OFFLOAD, Ordering.OFFLOAD);
    }

    @Test
    void offloadFiveReplicasOverFiveHundredSeeds() {
        range(5, Long.getLong("fts.sim.seeds", 500), KNOWN_5_OFFLOAD, Ordering.OFFLOAD);
    }

    private static void range(int replicas, long count, String known, Ordering ordering) {
        Set<Long> expected = Arrays.stream(seeds(known)).boxed().collect(Collectors.toSet());
        ProtocolSimulator.Options options = ProtocolSimulator.Options.of(replicas).with(ordering);
        List<ProtocolSimulator.Result> unexpected = new ArrayList<>();
        List<ProtocolSimulator.Result> knownFailed = new ArrayList<>();
        List<Long> nowPass = new ArrayList<>();
        List<Long> allFailing = new ArrayList<>();
        long t0 = System.nanoTime();
        for (long s = START; s < START + count; s++) {
            ProtocolSimulator.Result r = ProtocolSimulator.run(s, options);
            if (!r.ok()) {
                if (!LIVENESS.contains(r.invariant())) {
                    fail("seed " + s + " breaks a safety invariant; no seed may, listed or not:\n" + r.report());
                }
                allFailing.add(s);
                (expected.contains(s) ? knownFailed : unexpected).add(r);
            } else if (expected.contains(s)) {
                nowPass.add(s);
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("ProtocolSimulationTest: " + ordering.alias + " N=%d, seeds %d..%d, %d steps: %.1f s (%.0f seeds/s); %d known "
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
