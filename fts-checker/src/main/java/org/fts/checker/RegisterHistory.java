package org.fts.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fts.checker.History.Kind;
import org.fts.checker.History.Op;
import org.fts.checker.History.Outcome;

/**
 * One key's register history, reduced to what the search needs, with the checks that need no search.
 *
 * <ul>
 *   <li>A FAIL operation never happened: dropped. An INFO read says nothing: dropped.</li>
 *   <li>An INFO write may have happened, at any time after its invoke. If no read returned its value, it is
 *       dropped: placing it last (after everything else) is always possible for a write nobody read, so it
 *       neither helps nor hurts. If reads returned it, it happened before each of them completed, so its
 *       completion becomes the earliest completion among those reads: the same set of linearizations, a
 *       far smaller search.</li>
 *   <li>A read of a value that no kept write wrote, or of a value whose write was invoked only after the read
 *       completed, is illegal without any search ({@link #illegal}).</li>
 * </ul>
 * Values are numbered: 0 is the initial value {@code ""}, then one number per kept write. Operations are
 * numbered by invoke time.
 */
final class RegisterHistory {
    final String key;
    final Op[] op;
    final boolean[] write;
    final int[] value;
    final long[] invoke;
    final long[] complete;
    /** The value each number stands for. */
    final String[] valueName;
    /** The operation that wrote each value, -1 for the initial value. */
    final int[] writer;
    /** Why the history is illegal without a search, or null. */
    final String illegal;

    private RegisterHistory(String key, List<Op> kept, Map<String, Integer> ids, String illegal) {
        this.key = key;
        int n = kept.size();
        this.op = kept.toArray(new Op[0]);
        this.write = new boolean[n];
        this.value = new int[n];
        this.invoke = new long[n];
        this.complete = new long[n];
        this.valueName = new String[ids.size() + 1];
        this.writer = new int[ids.size() + 1];
        this.illegal = illegal;
        valueName[0] = "";
        writer[0] = -1;
        for (int i = 0; i < n; i++) {
            Op o = op[i];
            write[i] = o.kind() == Kind.WRITE;
            value[i] = o.value().isEmpty() ? 0 : ids.getOrDefault(o.value(), -1);
            invoke[i] = o.invoke();
            // an INFO write may take effect at any time after its invoke, also after its client gave up
            complete[i] = write[i] && o.outcome() == Outcome.INFO ? History.NEVER : o.complete();
            if (write[i]) {
                valueName[value[i]] = o.value();
                writer[value[i]] = i;
            }
        }
        for (int i = 0; i < n; i++) {   // an INFO write that was read happened before its first reader completed
            if (!write[i] && value[i] > 0) {
                int w = writer[value[i]];
                if (op[w].outcome() == Outcome.INFO) {
                    complete[w] = Math.min(complete[w], complete[i]);
                }
            }
        }
    }

    int size() {
        return op.length;
    }

    /** @param ops the key's WRITE and READ operations, any outcome; write values must be unique and not empty */
    static RegisterHistory of(String key, List<Op> ops) {
        Map<String, Op> writes = new HashMap<>();
        Map<String, Op> failedWrites = new HashMap<>();
        Map<String, Op> firstRead = new HashMap<>();   // per value: the OK read that completed first
        for (Op o : ops) {
            if (o.kind() == Kind.WRITE) {
                if (o.value() == null || o.value().isEmpty()) {
                    throw new IllegalArgumentException("a write of the initial value \"\": " + o);
                }
                if (writes.containsKey(o.value()) || failedWrites.containsKey(o.value())) {
                    throw new IllegalArgumentException("the value \"" + o.value() + "\" was written twice: the harness "
                            + "must write unique values (" + o + ")");
                }
                (o.outcome() == Outcome.FAIL ? failedWrites : writes).put(o.value(), o);
            } else if (o.kind() == Kind.READ && o.outcome() == Outcome.OK) {
                firstRead.merge(o.value(), o, (a, b) -> a.complete() <= b.complete() ? a : b);
            } else if (o.kind() != Kind.READ) {
                throw new IllegalArgumentException("not a register operation: " + o);
            }
        }
        String illegal = null;
        List<Op> kept = new ArrayList<>();
        for (Op o : ops) {
            if (o.outcome() == Outcome.FAIL || (o.kind() == Kind.READ && o.outcome() == Outcome.INFO)) {
                continue;
            }
            if (o.kind() == Kind.WRITE && o.outcome() == Outcome.INFO && !firstRead.containsKey(o.value())) {
                continue;
            }
            if (o.kind() == Kind.READ && !o.value().isEmpty() && illegal == null) {
                illegal = readOfNothing(o, writes.get(o.value()), failedWrites.get(o.value()));
            }
            kept.add(o);
        }
        kept.sort(Comparator.comparingLong(Op::invoke));
        if (illegal == null) {
            illegal = staleRead(kept, writes);
        }
        Map<String, Integer> ids = new HashMap<>();
        for (Op o : kept) {
            if (o.kind() == Kind.WRITE) {
                ids.put(o.value(), ids.size() + 1);
            }
        }
        return new RegisterHistory(key, kept, ids, illegal);
    }

    /**
     * The first read that returned a value certainly overwritten before it began: an OK write W2 began after
     * the value's OK write completed (or anywhere, for the initial value) and completed before the read began.
     * O(n log n): OK writes by completion, with the latest invoke among each prefix. Null if there is none.
     */
    private static String staleRead(List<Op> kept, Map<String, Op> writes) {
        List<Op> done = kept.stream().filter(o -> o.kind() == Kind.WRITE && o.outcome() == Outcome.OK)
                .sorted(Comparator.comparingLong(Op::complete)).toList();
        long[] completes = new long[done.size()];
        Op[] latest = new Op[done.size()];   // among done[0..i]: the write invoked last
        for (int i = 0; i < done.size(); i++) {
            completes[i] = done.get(i).complete();
            latest[i] = i > 0 && latest[i - 1].invoke() >= done.get(i).invoke() ? latest[i - 1] : done.get(i);
        }
        for (Op read : kept) {
            if (read.kind() != Kind.READ) {
                continue;
            }
            Op w = read.value().isEmpty() ? null : writes.get(read.value());
            if (w != null && w.outcome() != Outcome.OK) {
                continue;   // an INFO write may have taken effect late
            }
            int k = java.util.Arrays.binarySearch(completes, read.invoke());
            k = k >= 0 ? k : -k - 1;   // writes done[0..k) completed before the read began (ties: not before)
            while (k > 0 && completes[k - 1] >= read.invoke()) {
                k--;
            }
            if (k > 0 && (w == null || latest[k - 1].invoke() > w.complete())) {
                return "read " + read + " returned " + (w == null ? "the initial value" : "the value of " + w)
                        + ", which " + latest[k - 1] + " overwrote before the read began";
            }
        }
        return null;
    }

    /** Why {@code read} cannot have seen its value from {@code write} (null: no reason found here). */
    private static String readOfNothing(Op read, Op write, Op failed) {
        if (write != null) {
            return write.invoke() > read.complete()
                    ? "read " + read + " returned a value before its write was invoked: " + write : null;
        }
        if (failed != null) {
            return "read " + read + " returned a value whose write failed (certainly not executed): " + failed;
        }
        return "read " + read + " returned \"" + read.value() + "\", which no operation wrote";
    }
}
