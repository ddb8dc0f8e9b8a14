package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
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
 * <p>Every seed must pass, safety and liveness: within the fault model the group becomes primary again by itself
 * after any crash and heal (until issue 39 a list of seeds ended not primary for good: docs/simulator.md, finding B).
 */
class ProtocolSimulationTest {
    private static final long START = Long.getLong("fts.sim.start", 1);

    @Test
    void threeReplicasOverTwoThousandSeeds() {
        range(3, Long.getLong("fts.sim.seeds", 2000), Ordering.SEQUENCER);
    }

    @Test
    void fiveReplicasOverFiveHundredSeeds() {
        range(5, Long.getLong("fts.sim.seeds", 500), Ordering.SEQUENCER);
    }

    @Test
    void offloadThreeReplicasOverTwoThousandSeeds() {
        range(3, Long.getLong("fts.sim.seeds", 2000), Ordering.OFFLOAD);
    }

    @Test
    void offloadFiveReplicasOverFiveHundredSeeds() {
        range(5, Long.getLong("fts.sim.seeds", 500), Ordering.OFFLOAD);
    }

    /**
     * Read leases of five timer steps ({@code fts.reads.lease}): reports held back while a lease runs, the heal's wait
     * for them; half the reads at a member that sequences.
     */
    @Test
    void readLeasesThreeAndFiveReplicasWithAndWithoutLogs() {
        long n = Long.getLong("fts.sim.seeds", 1000);
        range(ProtocolSimulator.Options.of(3).withLease(5), n);
        range(ProtocolSimulator.Options.of(5).withLease(5), n / 2);
        range(ProtocolSimulator.Options.of(3).withLogs().withLease(5), n);
    }

    /** With logs: each replica's disk, what of it is synced, crashes of any number at once, storage faults. */
    @Test
    void withLogsThreeReplicasOverFiveThousandSeeds() {
        range(ProtocolSimulator.Options.of(3).withLogs(), Long.getLong("fts.sim.seeds", 5000));
    }

    @Test
    void withLogsFiveReplicasOverAThousandSeeds() {
        range(ProtocolSimulator.Options.of(5).withLogs(), Long.getLong("fts.sim.seeds", 1000));
    }

    /** Issue 59: 1,000-step schedules, in memory and with logs, with reads and without (docs/simulator.md). */
    @Test
    void longSchedulesWithAndWithoutLogs() {
        long n = Long.getLong("fts.sim.seeds", 1000);
        ProtocolSimulator.Options memory = new ProtocolSimulator.Options(3, 1000, true, false, Ordering.SEQUENCER);
        range(memory, n);
        range(memory.withLogs(), n);
        range(memory.withoutReads().withLogs(), n);
    }

    /**
     * Issue 59: power losses whose sync mark lags, the batch synced last damaged on one replica and cut as a torn tail
     * (SimFaults#maybeDamageLastSync). The member reports that its log may have held entries from there on, and the
     * recovery waits rather than found an epoch without an entry that may be committed: no safety invariant breaks
     * (without that report, 46 agreement violations in 3,000 seeds of 1,000 steps: docs/simulator.md). The group may
     * still wait where the model cannot prove an entry uncommitted (liveness: 11 seeds in 10,000 of 1,000 steps, open
     * in docs/simulator.md; 33 before the fixes of the seeds below), which is why only the safety invariants are
     * asserted strictly here.
     */
    @Test
    void powerLossesThatDamageTheBatchSyncedLastBreakNoSafetyInvariant() {
        ProtocolSimulator.Options o = new ProtocolSimulator.Options(3, 1000, true, false, Ordering.SEQUENCER)
                .withoutReads().withPowerLoss();
        List<String> broken = new java.util.ArrayList<>();
        int liveness = 0;
        long n = Long.getLong("fts.sim.seeds", 600);
        for (long seed = 1; seed <= n; seed++) {
            ProtocolSimulator.Result r = ProtocolSimulator.run(seed, o);
            if (!r.ok() && r.invariant().equals("liveness")) {
                liveness++;
            } else if (!r.ok()) {
                broken.add(r.report());
            }
        }
        assertTrue(broken.isEmpty(), String.join("\n", broken));
        assertTrue(liveness < n / 100, liveness + " seeds of " + n + " did not recover (about 0.1% expected)");
    }

    /**
     * Seeds that found a mechanism, run whatever the range above: each broke an invariant on an earlier version of the
     * protocol (docs/simulator.md, "Findings").
     */
    @Test
    void seedsThatFoundAMechanism() {
        // found before reads were modelled: their schedules replay only without them
        ProtocolSimulator.Options n3 = ProtocolSimulator.Options.of(3).withoutReads();
        ProtocolSimulator.Options n5 = ProtocolSimulator.Options.of(5).withoutReads();
        ProtocolSimulator.Options n5long = new ProtocolSimulator.Options(5, 1000, true, false, Ordering.SEQUENCER)
                .withoutReads();
        ProtocolSimulator.Options logs = n3.withLogs();
        ProtocolSimulator.Options reads = ProtocolSimulator.Options.of(3);
        ProtocolSimulator.Options logs1000 = new ProtocolSimulator.Options(3, 1000, true, false, Ordering.SEQUENCER)
                .withoutReads().withLogs();
        ProtocolSimulator.Options logs1000reads = new ProtocolSimulator.Options(3, 1000, true, false,
                Ordering.SEQUENCER).withLogs();
        Object[][] found = {
            {26347L, n3, "the sequencer opened after the others acknowledged its epoch: their opening ACKs were lost"},
            {1080L, n5long, "an origin told at a gap that its broadcasts were in a history later dropped lost them"},
            {1599L, n5, "a refounding gave a member whose state held a broadcast a gap with no provider"},
            {2186L, n3, "a member cut back below what its application had delivered"},
            {928L, n3, "a sequencer's own commit count is no bound under the followers' shortcut"},
            {46L, n3, "the latest epoch opened only by members with a gap (splice)"},
            {8L, n3, "a hollow epoch left one replica holding the history (splice)"},
            {3240L, n3, "an epoch whose sequencer never opened it"},
            {9243L, n3, "a sequencer whose opening acknowledgements were lost committed nothing without traffic"},
            {13597L, logs, "a durable member cut back to its commit point held less than it had acknowledged"},
            {6734L, logs, "a refounding whose coordinator's state held a broadcast named no initial-state provider"},
            {802L, logs, "a damaged entry was mended from the replica whose history agreed"},
            {8246L, logs, "a member whose log was short of its epoch, beside one with a gap"},
            {3263L, logs1000, "a splice continued an older epoch over a member here that had opened a later one"},
            {7448L, logs1000, "a splice continued an older epoch over a member here that had opened a later one (FIFO)"},
            {2709L, new ProtocolSimulator.Options(3, 1000, true, false, Ordering.SEQUENCER), "without logs, members "
                    + "given a gap dropped the only copies of what the spliced state was repaired with"},
            {16373L, logs1000, "with logs, a member given a gap restarted the log that held the only copies of what "
                    + "the spliced state was repaired with"},
            {16811L, logs1000, "every member holding the latest history had a log short of its epoch"},
            {12419L, logs1000, "the members of the latest epoch all had logs short of it"},
            {2830L, logs1000reads, "a member a recovery cut back, with that recovery's source's marks, was taken as a "
                    + "source (FIFO: an origin's dropped broadcast was never sent again)"},
            {3491L, logs1000, "a member cut back waited for a copy of a damaged entry that only checkpoints held"},
            {19468L, logs1000reads, "a member cut back waited for a copy of a damaged entry that only "
                    + "checkpoints held (with reads)"},
            {5750L, logs1000, "a later epoch that only its coordinator opened, its log short of it, stopped the splice"},
            {8487L, logs1000reads, "a later epoch that only its coordinator opened stopped the splice (reads)"},
            {14L, logs1000reads, "a founder cut back earlier by a recovery it never opened kept that recovery's "
                    + "source's marks (FIFO; found while fresh members counted towards a primary, since reverted)"},
            {11605L, logs1000, "a fresh member repaired from the start reported itself a founder, and a member whose "
                    + "history parted before a damaged entry counted as holding it"},
            {15933L, logs1000reads, "no member held its epoch whole: the short logs were not tried as a source"},
            {2321L, ProtocolSimulator.Options.of(3).withLogs().withPowerLoss(), "a checkpoint past a log a power "
                    + "loss cut short was used, and the log went on from the checkpoint with a hole"},
            {3052L, logs1000reads.with(Ordering.OFFLOAD), "a splice cut back the only copy here of a committed entry: "
                    + "a member whose log a recovery it never opened had cut back, beyond the source's end (agreement)"},
            {9021L, logs1000reads.with(Ordering.OFFLOAD), "a later epoch that committed nothing of its own hid an "
                    + "intermediate one that had committed, and the splice continued an older epoch (agreement)"},
            {447L, logs1000reads.withLearners(1), "a learner restarted from a log whose root was an uncheckpointed gap "
                    + "took the root as committed, became sequencer with a gap below it, and delivered its own new "
                    + "entries on that stale commit point (agreement)"},
            // broke the simulator's own check, not the protocol: a founding done again counts from a majority opening
            {14677L, reads, "a coordinator on stale reports founded again an epoch no majority could join"},
            {101816L, reads.with(Ordering.OFFLOAD), "a splice cut back a member whose state, founded again, was past "
                    + "the cut, and it delivered the spliced history on that state"},
            // each breaks the read rule where a sequencer confirms its own reads without pongs (a mutant of the rule)
            {6021L, reads, "a sequencer cut off from a later epoch reads (its own reads need pongs)"},
            {9158L, reads, "a sequencer cut off from a later epoch reads (its own reads need pongs)"},
            {16570L, reads, "a sequencer cut off from a later epoch reads (its own reads need pongs)"},
            {18708L, reads, "a sequencer cut off from a later epoch reads (its own reads need pongs)"},
        };
        List<String> broken = new ArrayList<>();
        for (Object[] f : found) {
            ProtocolSimulator.Result r = ProtocolSimulator.run((Long) f[0], (ProtocolSimulator.Options) f[1]);
            if (!r.ok()) {
                broken.add(f[2] + ":\n" + r.report());
            }
        }
        if (!broken.isEmpty()) {
            fail(String.join("\n\n", broken));
        }
    }

    private static void range(int replicas, long count, Ordering ordering) {
        range(ProtocolSimulator.Options.of(replicas).with(ordering), count);
    }

    private static void range(ProtocolSimulator.Options options, long count) {
        List<ProtocolSimulator.Result> failed = new ArrayList<>();
        long t0 = System.nanoTime();
        for (long s = START; s < START + count; s++) {
            ProtocolSimulator.Result r = ProtocolSimulator.run(s, options);
            if (!r.ok()) {
                failed.add(r);
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("ProtocolSimulationTest: %s, seeds %d..%d: %.1f s (%.0f seeds/s); %d violations%n",
                options.describe(), START, START + count - 1, secs, count / secs, failed.size());
        if (!failed.isEmpty()) {
            fail(failed.size() + " seeds break an invariant: " + failed.stream().map(ProtocolSimulator.Result::seed)
                    .toList() + " " + byInvariant(failed) + "\n" + failed.get(0).report());
        }
    }

    private static String byInvariant(List<ProtocolSimulator.Result> results) {
        return results.stream().collect(Collectors.groupingBy(ProtocolSimulator.Result::invariant, TreeMap::new,
                Collectors.counting())).toString();
    }
}
