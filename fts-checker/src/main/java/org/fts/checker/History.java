package org.fts.checker;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The record of every client operation of a chaos run: who, on which key, what (a write of a value, a read and
 * the value it returned, an increment and the value it returned), when it was invoked and when it completed,
 * and how it ended ({@link Outcome}). Times are {@code System.nanoTime()} minus the history's origin (the run's
 * start), so they line up with the fault log.
 *
 * <p>Thread-safe and cheap: each client thread records through its own {@link Recorder} (one uncontended
 * monitor, one small record per completed operation). {@link #ops()} may be called while clients still run:
 * an operation still in flight then appears as {@link Outcome#INFO} with completion {@link #NEVER}.
 */
public final class History {
    /** The completion time of an operation that never completed. */
    public static final long NEVER = Long.MAX_VALUE;

    /** What an operation did. */
    public enum Kind { WRITE, READ, INCREMENT }

    /**
     * How an operation ended: OK (answered), FAIL (certainly not executed), INFO (unknown: it may have taken
     * effect, at any time after its invoke).
     */
    public enum Outcome { OK, FAIL, INFO }

    /**
     * One operation. {@code value}: for a WRITE the value written; for a READ or INCREMENT the value returned
     * (decimal for an increment), null unless OK.
     */
    public record Op(int client, String key, Kind kind, String value, long invoke, long complete, Outcome outcome) {
        @Override
        public String toString() {
            String what = switch (kind) {
                case WRITE -> "write(\"" + value + "\")";
                case READ -> "read()" + (value == null ? "" : "->\"" + value + "\"");
                case INCREMENT -> "increment()" + (value == null ? "" : "->" + value);
            };
            return "c" + client + " " + key + "." + what + " " + outcome + " [" + seconds(invoke) + ".."
                    + (complete == NEVER ? "never" : seconds(complete)) + "]";
        }

        private static String seconds(long nanos) {
            return String.format(java.util.Locale.ROOT, "%.3fs", nanos / 1e9);
        }
    }

    private final long origin;
    private final List<Recorder> recorders = new CopyOnWriteArrayList<>();

    /** @param origin the run's start, {@code System.nanoTime()}: time 0 of every record */
    public History(long origin) {
        this.origin = origin;
    }

    public long origin() {
        return origin;
    }

    /** Nanoseconds since the origin. */
    public long now() {
        return System.nanoTime() - origin;
    }

    /** A recorder for one client; one thread uses it, one operation at a time. */
    public Recorder recorder(int client) {
        Recorder r = new Recorder(client);
        recorders.add(r);
        return r;
    }

    /** Every operation so far, by invoke time; operations in flight as INFO that never completed. */
    public List<Op> ops() {
        List<Op> all = new ArrayList<>();
        for (Recorder r : recorders) {
            r.copyTo(all);
        }
        all.sort(Comparator.comparingLong(Op::invoke));
        return all;
    }

    /** Writes {@link #ops()} as tab-separated lines (client, key, kind, value, invoke_ns, complete_ns, outcome). */
    public static void write(List<Op> ops, Path file) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("# client\tkey\tkind\tvalue\tinvoke_ns\tcomplete_ns\toutcome\n");
            for (Op o : ops) {
                w.write(o.client() + "\t" + o.key() + "\t" + o.kind() + "\t" + escape(o.value()) + "\t" + o.invoke()
                        + "\t" + (o.complete() == NEVER ? "-" : Long.toString(o.complete())) + "\t" + o.outcome()
                        + "\n");
            }
        }
    }

    /**
     * The longest stretch within {@code [from, to]} (times since the origin) in which no client got an answer:
     * the largest distance between consecutive OK completions, counting {@code from} and {@code to} as the
     * stretch's ends. {@code to - from} if nothing was answered.
     */
    public static long maxGapNanos(List<Op> ops, long from, long to) {
        long[] answers = ops.stream().filter(o -> o.outcome() == Outcome.OK).mapToLong(Op::complete)
                .filter(t -> t >= from && t <= to).sorted().toArray();
        long gap = 0;
        long last = from;
        for (long t : answers) {
            gap = Math.max(gap, t - last);
            last = t;
        }
        return Math.max(gap, to - last);
    }

    /** A value as one field: read values come from replicas and may hold anything. */
    private static String escape(String v) {
        if (v == null) {
            return "-";
        }
        return v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }

    /** Records one client's operations; each is {@link #invoke}d, then ended by ok, fail or info. */
    public final class Recorder {
        private final int client;
        private final List<Op> done = new ArrayList<>();
        private String key;
        private Kind kind;
        private String written;
        private long invoked;
        private boolean inFlight;

        private Recorder(int client) {
            this.client = client;
        }

        /** Starts an operation ({@code written}: the value a WRITE writes, else null). */
        public synchronized void invoke(String key, Kind kind, String written) {
            if (inFlight) {
                throw new IllegalStateException("c" + client + ": " + this.kind + " on " + this.key + " not ended");
            }
            this.key = key;
            this.kind = kind;
            this.written = written;
            this.inFlight = true;
            this.invoked = now();   // last: the operation starts after the bookkeeping
        }

        /** The operation was answered; {@code returned}: what a READ or INCREMENT returned (ignored for WRITE). */
        public void ok(String returned) {
            end(Outcome.OK, returned);
        }

        /** The operation certainly did not take effect. */
        public void fail() {
            end(Outcome.FAIL, null);
        }

        /** The operation's outcome is unknown. */
        public void info() {
            end(Outcome.INFO, null);
        }

        private void end(Outcome outcome, String returned) {
            long completed = now();   // first: the operation ended before the bookkeeping
            synchronized (this) {
                if (!inFlight) {
                    throw new IllegalStateException("c" + client + ": no operation in flight");
                }
                done.add(new Op(client, key, kind, kind == Kind.WRITE ? written : returned, invoked, completed,
                        outcome));
                inFlight = false;
            }
        }

        private synchronized void copyTo(List<Op> all) {
            all.addAll(done);
            if (inFlight) {
                all.add(new Op(client, key, kind, kind == Kind.WRITE ? written : null, invoked, NEVER,
                        Outcome.INFO));
            }
        }
    }
}
