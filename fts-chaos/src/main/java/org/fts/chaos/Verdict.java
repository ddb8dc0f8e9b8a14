package org.fts.chaos;

import org.fts.checker.History;
import org.fts.checker.Linearizability;
import org.fts.checker.CounterCheck;
import java.util.ArrayList;
import java.util.List;

import org.fts.checker.History.Op;
import org.fts.checker.History.Outcome;
import org.fts.checker.Linearizability.Result;

/**
 * A chaos run's verdict: PASS only if every key is proven linearizable, the counter lost, duplicated, over-counted
 * and reordered nothing, every replica served again within {@link #RECOVERY_TARGET_MS} and their states
 * converged within the bound, no client
 * was left in a call, and no replica exited by itself. {@code line} is the one grep-able summary
 * ({@code CHAOS verdict=PASS seed=… …}; {@code recover_ms} / {@code converge_ms} are -1 when not within the
 * bound; {@code max_gap_s} is the longest stretch in which no client got an answer,
 * {@link History#maxGapNanos}); {@code reasons} says why it failed.
 */
public record Verdict(boolean passed, String line, List<String> reasons) {
    /**
     * How soon after the last fault every replica must serve again (issue 17): a serving replica is in the
     * primary view and holds the group's state; the digests then confirm the states are equal.
     */
    public static final long RECOVERY_TARGET_MS = 15_000;

    /** What the run measured, for {@link #of}. */
    public record Run(List<Op> ops, List<Result> keys, CounterCheck.Report counter, long recoverMs, long convergeMs,
                      int faults, int stuckClients, int unexpectedExits, long maxGapNanos, BankLoad.Report bank) {
    }

    public static Verdict of(ChaosOptions o, Run r) {
        List<String> reasons = new ArrayList<>();
        boolean unknown = false;
        for (Result k : r.keys()) {
            if (!k.linearizable()) {
                reasons.add(k.toString());
                unknown |= k.verdict() == Linearizability.Verdict.UNKNOWN;
            }
        }
        boolean illegal = r.keys().stream().anyMatch(k -> k.verdict() == Linearizability.Verdict.ILLEGAL);
        if (!r.counter().passed()) {
            reasons.add("counter: " + r.counter().explanation());
        }
        if (r.recoverMs() < 0) {
            reasons.add("not every replica served again within the bound after the last fault ended");
        } else if (r.recoverMs() > RECOVERY_TARGET_MS) {
            reasons.add("every replica served again only " + r.recoverMs() + " ms after the last fault ended (target "
                    + RECOVERY_TARGET_MS + " ms)");
        }
        if (r.convergeMs() < 0) {
            reasons.add("the replicas' state digests did not become equal within the bound");
        }
        if (r.stuckClients() > 0) {
            reasons.add(r.stuckClients() + " clients still in a call well after their request expired");
        }
        if (r.unexpectedExits() > 0) {
            reasons.add(r.unexpectedExits() + " times a replica exited by itself (see the nemesis log and its .err)");
        }
        if (r.bank() != null) {
            r.bank().reasons().forEach(b -> reasons.add("bank: " + b));
            r.bank().auditReasons().forEach(b -> reasons.add("bank's audit: " + b));
        }
        long ok = r.ops().stream().filter(x -> x.outcome() == Outcome.OK).count();
        long info = r.ops().stream().filter(x -> x.outcome() == Outcome.INFO).count();
        long fail = r.ops().stream().filter(x -> x.outcome() == Outcome.FAIL).count();
        boolean passed = reasons.isEmpty();
        CounterCheck.Report c = r.counter();
        String line = "CHAOS verdict=" + (passed ? "PASS" : "FAIL") + " seed=" + o.seed() + " nemesis=" + o.nemesis()
                + " seconds=" + o.seconds() + " replicas=" + o.replicas()
                + " delivery=" + (o.delivery() == null ? "default" : o.delivery())
                + " batching=" + (o.batching() == null ? "default" : o.batching())
                + " placement=" + o.placement() + " clients=" + o.clients()
                + " ops=" + r.ops().size() + " ok=" + ok + " info=" + info + " fail=" + fail
                + " linearizable=" + (illegal ? "false" : unknown ? "unknown" : "true") + " keys=" + r.keys().size()
                + " lost=" + c.lost() + " dup=" + c.duplicates() + " over=" + c.over() + " reordered=" + c.reordered()
                + " recover_ms=" + r.recoverMs() + " converge_ms=" + r.convergeMs() + " faults=" + r.faults()
                + String.format(java.util.Locale.ROOT, " max_gap_s=%.1f", r.maxGapNanos() / 1e9)
                + (r.bank() == null ? "" : " workload=bank bank_ops=" + r.bank().operations() + " money="
                        + (r.bank().reasons().isEmpty() ? "kept" : "WRONG") + " audit="
                        + (r.bank().auditReasons().isEmpty() ? "ok" : "WRONG"));
        return new Verdict(passed, line, List.copyOf(reasons));
    }
}
