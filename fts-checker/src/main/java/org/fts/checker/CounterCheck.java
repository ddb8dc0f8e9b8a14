package org.fts.checker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.checker.History.Kind;
import org.fts.checker.History.Op;
import org.fts.checker.History.Outcome;

/**
 * The counter's exactly-once check. Every {@code increment()} returns the new value, so the OK increments'
 * values, the number of INFO increments (which may or may not have happened) and the final value on each
 * replica show:
 * <ul>
 *   <li><b>duplicates</b>: two OK increments returned the same value (one ran twice, or two ran as one);</li>
 *   <li><b>lost</b>: a replica's final value is below the largest value an increment returned, or below the
 *       number of OK increments (an acknowledged increment is missing);</li>
 *   <li><b>over-count</b>: a final value above OK + INFO increments (something ran that nobody asked for, or
 *       ran twice);</li>
 *   <li><b>reordered</b>: an OK increment returned less than one that had completed before it was invoked (the
 *       counter went back in time: its order contradicts real time).</li>
 * </ul>
 * FAIL increments never happened and are not counted.
 */
public final class CounterCheck {
    /**
     * What the check found; {@code finals} per replica, null where a replica gave no value (which fails the
     * check); {@code explanation} names examples when something is wrong (null otherwise).
     */
    public record Report(int ok, int info, int duplicates, int lost, int over, int reordered, List<Integer> finals,
                         String explanation) {
        public boolean passed() {
            return duplicates == 0 && lost == 0 && over == 0 && reordered == 0 && !finals.isEmpty()
                    && !finals.contains(null);
        }
    }

    private CounterCheck() {
    }

    /** Checks the INCREMENT operations of {@code history} against the replicas' final values. */
    public static Report of(List<Op> history, List<Integer> finals) {
        List<Op> ok = history.stream().filter(o -> o.kind() == Kind.INCREMENT && o.outcome() == Outcome.OK).toList();
        int info = (int) history.stream().filter(o -> o.kind() == Kind.INCREMENT && o.outcome() == Outcome.INFO)
                .count();
        int[] values = ok.stream().mapToInt(o -> Integer.parseInt(o.value())).toArray();
        Report r = check(values, info, finals);
        List<String> reordered = reordered(ok);
        if (reordered.isEmpty()) {
            return r;
        }
        String why = (r.explanation() == null ? "" : r.explanation() + "; ") + reordered.size()
                + " increments returned less than one that completed before they began, e.g. " + reordered.get(0);
        return new Report(r.ok(), r.info(), r.duplicates(), r.lost(), r.over(), reordered.size(), r.finals(), why);
    }

    /** The check without timing: OK values, INFO count, final value per replica (null: not read). */
    public static Report check(int[] okValues, int info, List<Integer> finals) {
        List<String> why = new ArrayList<>();
        Map<Integer, Integer> counts = new TreeMap<>();
        int max = 0;
        for (int v : okValues) {
            counts.merge(v, 1, Integer::sum);
            max = Math.max(max, v);
        }
        int duplicates = okValues.length - counts.size();
        if (duplicates > 0) {
            why.add(duplicates + " duplicate values, e.g. " + counts.entrySet().stream().filter(e -> e.getValue() > 1)
                    .limit(5).map(e -> e.getKey() + " (" + e.getValue() + "x)").toList());
        }
        int lost = 0;
        int over = 0;
        for (int i = 0; i < finals.size(); i++) {
            Integer f = finals.get(i);
            if (f == null) {
                why.add("r" + i + " gave no final value");
                continue;
            }
            int missing = Math.max(max - f, okValues.length - f);
            if (missing > 0) {
                why.add("r" + i + " holds " + f + ", below " + (max - f >= okValues.length - f
                        ? "the largest value returned, " + max : "the number of OK increments, " + okValues.length));
                lost = Math.max(lost, missing);
            }
            int extra = f - (okValues.length + info);
            if (extra > 0) {
                why.add("r" + i + " holds " + f + ", above OK + INFO increments, " + okValues.length + " + " + info);
                over = Math.max(over, extra);
            }
        }
        if (finals.isEmpty()) {
            why.add("no final value read");
        }
        return new Report(okValues.length, info, duplicates, lost, over, 0,
                Collections.unmodifiableList(new ArrayList<>(finals)), why.isEmpty() ? null : String.join("; ", why));
    }

    /**
     * OK increments that returned less than an increment which completed before they were invoked: sweeping
     * in invoke order, with the largest value among those completed so far. Up to 5 described, all counted.
     */
    private static List<String> reordered(List<Op> ok) {
        List<Op> byComplete = ok.stream().sorted(Comparator.comparingLong(Op::complete)).toList();
        List<Op> byInvoke = ok.stream().sorted(Comparator.comparingLong(Op::invoke)).toList();
        List<String> found = new ArrayList<>();
        Op highest = null;
        int c = 0;
        for (Op b : byInvoke) {
            for (; c < byComplete.size() && byComplete.get(c).complete() < b.invoke(); c++) {
                Op a = byComplete.get(c);
                if (highest == null || value(a) > value(highest)) {
                    highest = a;
                }
            }
            if (highest != null && value(highest) > value(b)) {
                found.add(found.size() < 5 ? b + " after " + highest : "");
            }
        }
        return found;
    }

    private static int value(Op o) {
        return Integer.parseInt(o.value());
    }
}
