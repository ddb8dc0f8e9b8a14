package org.fts.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import org.fts.checker.History.Kind;
import org.fts.checker.History.Op;
import org.fts.checker.History.Outcome;
import org.fts.checker.Linearizability.Result;
import org.fts.checker.Linearizability.Verdict;
import org.junit.jupiter.api.Test;

/** The register checker on hand-made legal, illegal and ambiguous histories, and on simulated ones. */
class LinearizabilityTest {
    private static final String K = "hello-0";
    private final Linearizability checker = new Linearizability();

    /** An operation on {@link #K}; times in milliseconds. */
    private static Op op(int client, Kind kind, String value, long from, long to, Outcome outcome) {
        return new Op(client, K, kind, value, from * 1_000_000, to * 1_000_000, outcome);
    }

    private static Op w(int client, String value, long from, long to) {
        return op(client, Kind.WRITE, value, from, to, Outcome.OK);
    }

    private static Op r(int client, String value, long from, long to) {
        return op(client, Kind.READ, value, from, to, Outcome.OK);
    }

    private Result check(Op... ops) {
        return checker.checkKey(K, List.of(ops));
    }

    private static void assertLegal(Result r) {
        assertEquals(Verdict.LINEARIZABLE, r.verdict(), r::toString);
    }

    private static void assertIllegal(Result r, String mentioned) {
        assertEquals(Verdict.ILLEGAL, r.verdict(), r::toString);
        assertTrue(r.explanation().contains(mentioned), () -> "the explanation names " + mentioned + ": " + r);
    }

    @Test
    void sequentialLegal() {
        assertLegal(check(r(1, "", 0, 1), w(1, "a", 2, 3), r(2, "a", 4, 5), w(2, "b", 6, 7), r(1, "b", 8, 9)));
    }

    @Test
    void concurrentLegal() {
        // b takes effect first, then a, each read overlapping the writes
        assertLegal(check(w(1, "a", 0, 10), w(2, "b", 1, 9), r(3, "b", 2, 3), r(3, "a", 4, 5), r(4, "", 0, 1)));
        // a read overlapping a write may see either value
        assertLegal(check(w(1, "a", 0, 10), r(2, "a", 1, 2), r(3, "a", 3, 4)));
        assertLegal(check(w(1, "a", 0, 10), r(2, "", 1, 2), r(3, "a", 3, 4)));
    }

    @Test
    void staleReadAfterACompletedWriteIsIllegal() {
        List<Op> ops = List.of(w(1, "a", 0, 1), w(1, "b", 2, 3), r(2, "a", 4, 5));
        Result res = checker.checkKey(K, ops);
        assertIllegal(res, "c2 hello-0.read()->\"a\"");
        assertTrue(res.explanation().contains("c1 hello-0.write(\"b\") OK [0.002s..0.003s] overwrote"), res::toString);
        // the search alone finds it too, and says where it got stuck
        Result searched = search(ops, Linearizability.DEFAULT_BUDGET);
        assertIllegal(searched, "c2 hello-0.read()->\"a\"");
        assertTrue(searched.explanation().contains("held \"b\""), searched::toString);
        assertIllegal(check(w(1, "a", 0, 1), r(2, "", 2, 3)), "the initial value");
    }

    /** The search without the checks that need none (they would find the simple cases first). */
    private static Result search(List<Op> ops, long budget) {
        return new RegisterSearch(RegisterHistory.of(K, ops), budget).run();
    }

    @Test
    void readOfAValueNeverWrittenIsIllegal() {
        assertIllegal(check(w(1, "a", 0, 1), r(2, "zz", 2, 3)), "which no operation wrote");
    }

    @Test
    void readOfAValueBeforeItsWriteWasInvokedIsIllegal() {
        assertIllegal(check(r(2, "a", 0, 1), w(1, "a", 2, 3)), "before its write was invoked");
    }

    @Test
    void anInfoWriteObservedLaterIsLegal() {
        // the client gave up at 1 ms; the write took effect later, even after b
        assertLegal(check(op(1, Kind.WRITE, "a", 0, 1, Outcome.INFO), w(2, "b", 2, 3), r(3, "b", 4, 5),
                r(3, "a", 6, 7)));
        // in flight when the history was taken
        assertLegal(check(new Op(1, K, Kind.WRITE, "a", 0, History.NEVER, Outcome.INFO), r(3, "a", 6, 7)));
    }

    @Test
    void anInfoWriteNeverObservedIsLegal() {
        assertLegal(check(op(1, Kind.WRITE, "a", 0, 1, Outcome.INFO), r(2, "", 2, 3), w(2, "b", 4, 5),
                r(2, "b", 6, 7)));
    }

    @Test
    void anInfoWriteTakesEffectBeforeItsReaders() {
        // once a reader saw it, the register never holds the value before it again
        assertIllegal(check(op(1, Kind.WRITE, "a", 0, 1, Outcome.INFO), r(2, "a", 5, 6), r(2, "", 7, 8)),
                "read()->\"\"");
    }

    @Test
    void infoAndFailReadsSayNothing() {
        assertLegal(check(w(1, "a", 0, 1), op(2, Kind.READ, null, 2, 3, Outcome.INFO),
                op(2, Kind.READ, null, 4, 5, Outcome.FAIL), r(2, "a", 6, 7)));
    }

    @Test
    void aReadThatSeesAValueThenAnOlderOneIsIllegal() {
        // b overlaps both reads, so either order of the writes is possible until the second read
        Result res = check(w(1, "a", 0, 1), w(2, "b", 2, 10), r(3, "b", 3, 4), r(3, "a", 5, 6));
        assertIllegal(res, "c3 hello-0.read()->\"a\"");
        assertTrue(res.steps() > 0, "found by the search, not a pre-check");
    }

    @Test
    void aFailedWriteObservedIsIllegal() {
        assertIllegal(check(op(1, Kind.WRITE, "a", 0, 1, Outcome.FAIL), r(2, "a", 2, 3)), "whose write failed");
    }

    @Test
    void aValueWrittenTwiceIsTheHarnessesBug() {
        assertThrows(IllegalArgumentException.class, () -> check(w(1, "a", 0, 1), w(2, "a", 2, 3)));
    }

    @Test
    void keysAreCheckedIndependently() {
        List<Op> ops = new ArrayList<>(List.of(w(1, "a", 0, 1), w(1, "b", 2, 3), r(2, "a", 4, 5)));
        ops.add(new Op(1, "hello-1", Kind.WRITE, "x", 0, 1, Outcome.OK));
        ops.add(new Op(2, "hello-1", Kind.READ, "x", 5, 6, Outcome.OK));
        ops.add(new Op(2, "counter", Kind.INCREMENT, "1", 5, 6, Outcome.OK));   // not a register: ignored
        List<Result> results = checker.check(ops);
        assertEquals(List.of("hello-0", "hello-1"), results.stream().map(Result::key).toList());
        assertEquals(List.of(Verdict.ILLEGAL, Verdict.LINEARIZABLE), results.stream().map(Result::verdict).toList());
    }

    @Test
    void aLargeRandomHistoryOfAnAtomicRegisterIsLegal() {
        for (long seed = 1; seed <= 5; seed++) {
            List<Op> ops = simulate(new Random(seed), 10, 300);
            Result res = checker.checkKey(K, ops);
            assertLegal(res);
            // the reductions keep the search near linear on a legal history
            assertTrue(res.steps() < 50L * ops.size(), () -> "steps " + res);
        }
    }

    @Test
    void theSameWithOneReadCorruptedIsIllegal() {
        for (long seed = 1; seed <= 5; seed++) {
            List<Op> ops = new ArrayList<>(simulate(new Random(seed), 10, 300));
            Op stale = corruptOneRead(ops);
            Result res = checker.checkKey(K, ops);
            assertIllegal(res, "read " + stale + " returned the value of");
            Result searched = search(ops, Linearizability.DEFAULT_BUDGET);
            assertIllegal(searched, "no linearization exists");
            assertTrue(searched.explanation().contains(stale + " had to take effect"), searched::toString);
        }
    }

    @Test
    void pastItsBudgetTheVerdictIsUnknownNotAHang() {
        Result res = new Linearizability(50).checkKey(K, simulate(new Random(7), 10, 300));   // legal, but 50 steps
        assertEquals(Verdict.UNKNOWN, res.verdict(), res::toString);
        assertTrue(res.toString().contains("unknown (budget exceeded)"), res::toString);
    }

    @Test
    void smallRandomHistoriesGetTheSameVerdictAsTryingEveryOrder() {
        Random rnd = new Random(2024);
        int illegal = 0;
        for (int round = 0; round < 3000; round++) {
            List<Op> ops = new ArrayList<>();
            int n = 1 + rnd.nextInt(7);
            for (int i = 0; i < n; i++) {
                long from = rnd.nextInt(10);
                long to = from + rnd.nextInt(6);
                int fate = rnd.nextInt(10);
                Outcome outcome = fate < 2 ? Outcome.INFO : fate < 3 ? Outcome.FAIL : Outcome.OK;
                if (rnd.nextBoolean()) {
                    ops.add(op(i, Kind.WRITE, "v" + i, from, to, outcome));
                } else {
                    int v = rnd.nextInt(n + 1);   // a value some operation may write, or the initial one
                    ops.add(op(i, Kind.READ, outcome == Outcome.OK ? (v == n ? "" : "v" + v) : null, from, to, outcome));
                }
            }
            boolean expected = BruteForce.linearizable(ops);
            illegal += expected ? 0 : 1;
            Result res = checker.checkKey(K, ops);
            assertEquals(expected, res.linearizable(), () -> ops + " -> " + res);
            boolean wellFormed = ops.stream().noneMatch(o -> o.kind() == Kind.READ && o.outcome() == Outcome.OK
                    && !o.value().isEmpty() && ops.stream().noneMatch(w -> w.kind() == Kind.WRITE
                    && w.outcome() != Outcome.FAIL && w.value().equals(o.value())));
            if (wellFormed) {   // the search alone needs every read's value to have a write
                assertEquals(expected, search(ops, 1_000_000).linearizable(), ops::toString);
            }
        }
        assertTrue(illegal > 300 && illegal < 2700, "both verdicts well represented: " + illegal + " illegal");
    }

    /** Linearizability by definition: some choice of INFO writes and some order of them all fits. */
    private static final class BruteForce {
        static boolean linearizable(List<Op> history) {
            List<Op> ops = history.stream().filter(o -> o.outcome() != Outcome.FAIL
                    && !(o.kind() == Kind.READ && o.outcome() == Outcome.INFO)).toList();
            return order(ops, new boolean[ops.size()], 0, "");
        }

        /** Extends an order: {@code used} placed so far; an INFO write may also never be placed. */
        private static boolean order(List<Op> ops, boolean[] used, int placed, String register) {
            boolean mustRemain = false;
            for (int i = 0; i < ops.size(); i++) {
                mustRemain |= !used[i] && ops.get(i).outcome() == Outcome.OK;
            }
            if (!mustRemain) {
                return true;   // the INFO writes left never happened
            }
            for (int i = 0; i < ops.size(); i++) {
                Op o = ops.get(i);
                if (used[i] || (o.kind() == Kind.READ && !o.value().equals(register))) {
                    continue;
                }
                boolean minimal = true;   // nothing left completed before o was invoked
                for (int j = 0; j < ops.size() && minimal; j++) {
                    Op p = ops.get(j);
                    boolean pEnds = p.outcome() == Outcome.OK;   // an INFO write never completes
                    minimal = used[j] || j == i || !pEnds || p.complete() >= o.invoke();
                }
                if (minimal) {
                    used[i] = true;
                    if (order(ops, used, placed + 1, o.kind() == Kind.WRITE ? o.value() : register)) {
                        return true;
                    }
                    used[i] = false;
                }
            }
            return false;
        }
    }

    /**
     * A history of an atomic register: each client runs operations one after another, each with a random
     * duration and a random instant inside it where it takes effect on the register. Writes are unique; a few
     * outcomes are INFO (a write then took effect, possibly late, or not at all) or FAIL (it did not).
     */
    static List<Op> simulate(Random rnd, int clients, int perClient) {
        record Spec(int client, boolean write, String value, long invoke, long complete, Outcome outcome,
                    long effect) {
        }
        List<Spec> specs = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            long t = rnd.nextInt(5_000);
            for (int k = 0; k < perClient; k++) {
                long d = 1 + rnd.nextInt(30_000);
                boolean write = rnd.nextBoolean();
                int fate = rnd.nextInt(100);
                Outcome outcome = fate < 4 ? Outcome.INFO : fate < 6 ? Outcome.FAIL : Outcome.OK;
                long effect = t + rnd.nextLong(d + 1);
                if (outcome == Outcome.FAIL || (outcome == Outcome.INFO && rnd.nextBoolean())) {
                    effect = -1;   // never took effect
                } else if (outcome == Outcome.INFO) {
                    effect = t + rnd.nextLong(10 * d);   // took effect, maybe after the client gave up
                }
                specs.add(new Spec(c, write, write ? "c" + c + "-" + k : null, t, t + d, outcome, effect));
                t += d + rnd.nextInt(3_000);
            }
        }
        List<Spec> byEffect = new ArrayList<>(specs.stream().filter(s -> s.effect() >= 0).toList());
        byEffect.sort(Comparator.comparingLong(Spec::effect));
        String register = "";
        java.util.Map<Spec, String> read = new java.util.IdentityHashMap<>();
        for (Spec s : byEffect) {
            if (s.write()) {
                register = s.value();
            } else {
                read.put(s, register);
            }
        }
        List<Op> ops = new ArrayList<>();
        for (Spec s : specs) {
            String v = s.write() ? s.value() : s.outcome() == Outcome.OK ? read.get(s) : null;
            ops.add(new Op(s.client(), K, s.write() ? Kind.WRITE : Kind.READ, v, s.invoke() * 1000,
                    s.complete() * 1000, s.outcome()));   // microseconds to nanoseconds
        }
        return ops;
    }

    /**
     * Makes a read in the second half of the run return a value that was certainly overwritten before it began: written
     * by w1, where w1 completed before w2 was invoked and w2 completed before the read was invoked.
     */
    private static Op corruptOneRead(List<Op> ops) {
        List<Op> okWrites = ops.stream().filter(o -> o.kind() == Kind.WRITE && o.outcome() == Outcome.OK).toList();
        long middle = ops.stream().mapToLong(Op::invoke).max().orElseThrow() / 2;
        for (int i = 0; i < ops.size(); i++) {
            Op read = ops.get(i);
            if (read.kind() != Kind.READ || read.outcome() != Outcome.OK || read.invoke() < middle) {
                continue;
            }
            for (Op w2 : okWrites) {
                if (w2.complete() >= read.invoke()) {
                    continue;
                }
                for (Op w1 : okWrites) {
                    if (w1.complete() < w2.invoke() && !w1.value().equals(read.value())) {
                        Op stale = new Op(read.client(), K, Kind.READ, w1.value(), read.invoke(), read.complete(),
                                Outcome.OK);
                        ops.set(i, stale);
                        return stale;
                    }
                }
            }
        }
        throw new IllegalStateException("no read to corrupt");
    }
}
