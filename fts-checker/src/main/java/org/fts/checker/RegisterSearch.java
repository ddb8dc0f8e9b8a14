package org.fts.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.fts.checker.Linearizability.Result;
import org.fts.checker.Linearizability.Verdict;

/**
 * The linearization search for one key's register history (Wing & Gong's depth-first search over the order of
 * operations, on a linked list of call and return events as in Lowe's formulation, with a memo of the
 * configurations already explored).
 *
 * <p>A configuration is the set of operations linearized so far (a bitset) and the register's value. At each
 * step the candidates are the pending operations invoked before the earliest pending completion: any of them
 * may take effect next; an operation whose completion comes first must take effect before anything invoked
 * after it. Two reductions keep the branching small:
 * <ul>
 *   <li>A pending read that returns the register's current value goes next, without alternatives. Values are
 *       written once, so the register cannot hold that value again after any other write: in every
 *       linearization from here, no write comes before that read, and it may as well be next.</li>
 *   <li>Writes are tried earliest completion first, the order most likely to succeed.</li>
 * </ul>
 * A configuration already explored is never explored again, so the work is bounded by the number of distinct
 * configurations reachable, not by the number of orders; the budget bounds it further.
 */
final class RegisterSearch {
    private final RegisterHistory h;
    private final long budget;
    private final int n;
    private final int head;
    private final int[] next;
    private final int[] prev;
    private final int[] opOf;
    private final boolean[] isCall;
    private final int[] callNode;
    private final int[] retNode;
    private final long[] bits;
    private final Set<Memo> seen = new HashSet<>();
    // levels 0..depth: the options at each (a range of opts) and the next to try; frames 0..depth-1: what was applied
    private final int[] levelStart;
    private final int[] levelEnd;
    private final int[] levelNext;
    private final int[] appliedOp;
    private final int[] previousState;
    private int[] opts = new int[64];
    private int optTop;
    private int depth;
    private int state;
    private long steps;
    // the deepest dead end, for the explanation
    private int bestDepth = -1;
    private int stuckOp;
    private int stuckState;
    private int stuckDepth;
    private List<Integer> stuckPending = List.of();

    RegisterSearch(RegisterHistory h, long budget) {
        this.h = h;
        this.budget = budget;
        this.n = h.size();
        this.head = 2 * n;
        this.next = new int[2 * n + 1];
        this.prev = new int[2 * n + 1];
        this.opOf = new int[2 * n];
        this.isCall = new boolean[2 * n];
        this.callNode = new int[n];
        this.retNode = new int[n];
        this.bits = new long[(n + 63) / 64];
        this.levelStart = new int[n + 1];
        this.levelEnd = new int[n + 1];
        this.levelNext = new int[n + 1];
        this.appliedOp = new int[n];
        this.previousState = new int[n];
        // events in time order; at equal times calls first (the permissive reading: the two overlap)
        Integer[] events = new Integer[2 * n];
        for (int e = 0; e < 2 * n; e++) {
            events[e] = e;
        }
        Arrays.sort(events, Comparator.<Integer>comparingLong(e -> (e & 1) == 0 ? h.invoke[e >> 1] : h.complete[e >> 1])
                .thenComparingInt(e -> e & 1));
        for (int k = 0; k < 2 * n; k++) {
            int e = events[k];
            opOf[k] = e >> 1;
            isCall[k] = (e & 1) == 0;
            if (isCall[k]) {
                callNode[e >> 1] = k;
            } else {
                retNode[e >> 1] = k;
            }
            next[k] = k + 1;
            prev[k] = k == 0 ? head : k - 1;
        }
        next[head] = n == 0 ? head : 0;
        prev[head] = n == 0 ? head : 2 * n - 1;
        if (n > 0) {
            next[2 * n - 1] = head;
        }
    }

    Result run() {
        openLevel();
        while (next[head] != head) {
            if (++steps > budget) {
                return new Result(h.key, Verdict.UNKNOWN, n, steps, "unknown (budget exceeded): " + budget
                        + " steps, " + seen.size() + " configurations explored, at most " + (bestDepth + 1) + " of " + n
                        + " operations linearized");
            }
            if (tryNextOption()) {
                openLevel();
                continue;
            }
            optTop = levelStart[depth];   // this level is exhausted: undo the choice that led here
            if (depth == 0) {
                return new Result(h.key, Verdict.ILLEGAL, n, steps, explanation());
            }
            undo();
        }
        return new Result(h.key, Verdict.LINEARIZABLE, n, steps, null);
    }

    /** Lists the options of the configuration reached (level {@code depth}); notes a dead end. */
    private void openLevel() {
        int start = optTop;
        int forced = -1;
        for (int x = next[head]; x != head && isCall[x]; x = next[x]) {
            int o = opOf[x];
            if (h.write[o]) {
                push(o);
            } else if (h.value[o] == state) {
                forced = o;
                break;
            }
        }
        if (forced >= 0) {
            optTop = start;
            push(forced);
        } else {
            for (int i = start + 1; i < optTop; i++) {   // earliest completion first; few candidates: insertion sort
                int o = opts[i];
                int j = i - 1;
                for (; j >= start && retNode[opts[j]] > retNode[o]; j--) {
                    opts[j + 1] = opts[j];
                }
                opts[j + 1] = o;
            }
        }
        levelStart[depth] = start;
        levelEnd[depth] = optTop;
        levelNext[depth] = start;
        if (optTop == start && depth > bestDepth && next[head] != head) {
            noteDeadEnd();
        }
    }

    /** Applies the next option of level {@code depth} that leads to a configuration not yet explored. */
    private boolean tryNextOption() {
        while (levelNext[depth] < levelEnd[depth]) {
            int o = opts[levelNext[depth]++];
            int after = h.write[o] ? h.value[o] : state;
            bits[o >> 6] |= 1L << o;
            if (seen.add(memo(after))) {
                appliedOp[depth] = o;
                previousState[depth] = state;
                state = after;
                lift(callNode[o]);
                depth++;
                return true;
            }
            bits[o >> 6] &= ~(1L << o);
        }
        return false;
    }

    private void undo() {
        depth--;
        int o = appliedOp[depth];
        unlift(callNode[o]);
        bits[o >> 6] &= ~(1L << o);
        state = previousState[depth];
    }

    private void push(int o) {
        if (optTop == opts.length) {
            opts = Arrays.copyOf(opts, opts.length * 2);
        }
        opts[optTop++] = o;
    }

    /** Takes an operation's call and return out of the event list (dancing links: undone in reverse order). */
    private void lift(int call) {
        remove(call);
        remove(retNode[opOf[call]]);
    }

    private void unlift(int call) {
        restore(retNode[opOf[call]]);
        restore(call);
    }

    private void remove(int x) {
        next[prev[x]] = next[x];
        prev[next[x]] = prev[x];
    }

    private void restore(int x) {
        next[prev[x]] = x;
        prev[next[x]] = x;
    }

    /**
     * The configuration as a memo key. Operations are numbered by invoke time, so the linearized set is a run
     * of full words, a few mixed ones and zeros: only the mixed middle is stored.
     */
    private Memo memo(int value) {
        int from = 0;
        while (from < bits.length && bits[from] == -1L) {
            from++;
        }
        int to = bits.length;
        while (to > from && bits[to - 1] == 0) {
            to--;
        }
        return new Memo(from, Arrays.copyOfRange(bits, from, to), value);
    }

    private static final class Memo {
        private final int from;
        private final long[] words;
        private final int value;
        private final int hash;

        Memo(int from, long[] words, int value) {
            this.from = from;
            this.words = words;
            this.value = value;
            this.hash = (Arrays.hashCode(words) * 31 + from) * 31 + value;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Memo m && m.hash == hash && m.from == from && m.value == value
                    && Arrays.equals(m.words, words);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** Remembers the deepest configuration with nothing to linearize: where the history stops making sense. */
    private void noteDeadEnd() {
        bestDepth = depth;
        stuckDepth = depth;
        stuckState = state;
        List<Integer> pending = new ArrayList<>();
        int x = next[head];
        for (; x != head && isCall[x]; x = next[x]) {
            pending.add(opOf[x]);
        }
        stuckOp = x == head ? -1 : opOf[x];
        stuckPending = pending;
    }

    private String explanation() {
        if (bestDepth < 0) {
            return "no linearization exists";
        }
        int w = h.writer[stuckState];
        StringBuilder b = new StringBuilder("no linearization exists. The deepest attempt linearized ")
                .append(stuckDepth).append(" of ").append(n).append(" operations; the register then held \"")
                .append(h.valueName[stuckState]).append("\" (")
                .append(w < 0 ? "the initial value" : "written by " + h.op[w]).append(")");
        if (stuckOp >= 0) {
            b.append(", and ").append(h.op[stuckOp]).append(" had to take effect before it completed");
            int v = h.value[stuckOp];
            if (!h.write[stuckOp] && v >= 0) {
                int vw = h.writer[v];
                b.append(" (its value is ").append(vw < 0 ? "the initial one" : "from " + h.op[vw]).append(")");
            }
            b.append(", but nothing pending could make the register hold that value in time");
        }
        b.append(". Pending then:");
        stuckPending.stream().limit(6).forEach(o -> b.append(' ').append(h.op[o]).append(';'));
        if (stuckPending.size() > 6) {
            b.append(" … ").append(stuckPending.size() - 6).append(" more");
        }
        return b.toString();
    }
}
