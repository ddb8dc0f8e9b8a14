package org.fts.checker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.checker.History.Kind;
import org.fts.checker.History.Op;

/**
 * Decides whether a history of a keyed register (WRITE of a value, READ returning a value, initial value
 * {@code ""}) is linearizable: whether every operation can be given one instant between its invoke and its
 * completion such that, in the order of those instants, every read returns the last value written.
 *
 * <p>Semantics of outcomes: an OK operation takes effect between its invoke and its completion; a FAIL one
 * never happened; an INFO write may or may not have happened and, if it did, at any time after its invoke; an
 * INFO read says nothing. Write values must be unique (the harness guarantees it).
 *
 * <p>Keys are checked independently: a history is linearizable exactly when each key's sub-history is
 * (linearizability is compositional). Each key's check is a depth-first search with memoization
 * ({@link RegisterSearch}), bounded by a step budget: past it the key's verdict is {@link Verdict#UNKNOWN},
 * never a hang. Memory is bounded by the budget too: one memo entry per step at most.
 */
public final class Linearizability {
    /** Steps per key: a few seconds and at most a few hundred MB of memo in the worst case. */
    public static final long DEFAULT_BUDGET = 2_000_000L;

    /** A key's verdict. */
    public enum Verdict { LINEARIZABLE, ILLEGAL, UNKNOWN }

    /**
     * One key's result: {@code ops} counts the operations the search considered (after dropping FAIL operations,
     * INFO reads and INFO writes nobody read); {@code explanation} says, for an ILLEGAL or UNKNOWN key, where
     * no linearization was found (null when linearizable).
     */
    public record Result(String key, Verdict verdict, int ops, long steps, String explanation) {
        public boolean linearizable() {
            return verdict == Verdict.LINEARIZABLE;
        }

        @Override
        public String toString() {
            String v = switch (verdict) {
                case LINEARIZABLE -> "linearizable";
                case ILLEGAL -> "NOT linearizable";
                case UNKNOWN -> "unknown (budget exceeded)";
            };
            return key + ": " + v + " (" + ops + " ops, " + steps + " steps)"
                    + (explanation == null ? "" : ": " + explanation);
        }
    }

    private final long budget;

    public Linearizability() {
        this(DEFAULT_BUDGET);
    }

    /** @param budget search steps allowed per key */
    public Linearizability(long budget) {
        if (budget <= 0) {
            throw new IllegalArgumentException("the step budget must be positive, not " + budget);
        }
        this.budget = budget;
    }

    /** Checks every key of {@code history}'s WRITE and READ operations (INCREMENTs are ignored), by key. */
    public List<Result> check(List<Op> history) {
        Map<String, List<Op>> byKey = new TreeMap<>();
        for (Op o : history) {
            if (o.kind() != Kind.INCREMENT) {
                byKey.computeIfAbsent(o.key(), k -> new ArrayList<>()).add(o);
            }
        }
        List<Result> results = new ArrayList<>();
        byKey.forEach((key, ops) -> results.add(checkKey(key, ops)));
        return results;
    }

    /** Checks one key's WRITE and READ operations. */
    public Result checkKey(String key, List<Op> ops) {
        RegisterHistory h = RegisterHistory.of(key, ops);
        if (h.illegal != null) {
            return new Result(key, Verdict.ILLEGAL, h.size(), 0, h.illegal);
        }
        return new RegisterSearch(h, budget).run();
    }
}
