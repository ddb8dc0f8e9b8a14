package org.fts.samples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.ft.Ior;
import org.omg.CORBA.ORB;

/**
 * The exactly-once workload: client threads, each with its own reference to the replicated counter, call
 * {@code increment()} a fixed number of times while a fault (a {@code kill -9}, a SIGSTOP) hits the group
 * mid-run. Each call's returned value and timing is recorded, so the caller can check that the values are
 * exactly 1..N (nothing lost, nothing run twice) and measure the stall the fault caused. Used by the
 * failover tests and {@code bin/fts bench failover}.
 */
public final class FailoverWorkload {
    /** One completed call: the counter value it returned, and when it ran (System.nanoTime). */
    public record Call(int client, int value, long startNanos, long endNanos) {
        public double millis() {
            return (endNanos - startNanos) / 1e6;
        }
    }

    /** What the run produced. {@code faultNanos} is when the fault was injected (0 if never). */
    public record Result(List<Call> calls, List<String> errors, long faultNanos, int expected) {
        public List<Integer> sortedValues() {
            List<Integer> v = new ArrayList<>(calls.stream().map(Call::value).toList());
            Collections.sort(v);
            return v;
        }

        /** Values in 1..expected that no client received. */
        public int lost() {
            boolean[] seen = new boolean[expected + 1];
            for (Call c : calls) {
                if (c.value() >= 1 && c.value() <= expected) {
                    seen[c.value()] = true;
                }
            }
            int lost = 0;
            for (int v = 1; v <= expected; v++) {
                lost += seen[v] ? 0 : 1;
            }
            return lost;
        }

        /** Calls that returned a value another call also returned (or one outside 1..expected). */
        public int duplicated() {
            return calls.size() - (int) calls.stream().map(Call::value).filter(v -> v >= 1 && v <= expected)
                    .distinct().count();
        }

        /** Latencies (ms) of the calls in flight when the fault struck, slowest last. */
        public List<Double> spanning() {
            List<Double> l = new ArrayList<>(calls.stream()
                    .filter(c -> faultNanos > 0 && c.startNanos() <= faultNanos && c.endNanos() >= faultNanos)
                    .map(Call::millis).toList());
            Collections.sort(l);
            return l;
        }
    }

    /** The fault to inject mid-run; it may watch the clients' progress (calls completed per client). */
    @FunctionalInterface
    public interface Fault {
        void inject(AtomicIntegerArray progress) throws Exception;
    }

    private FailoverWorkload() {
    }

    /**
     * Homes for {@code clients} clients over {@code replicas} replicas: 60% start at replica {@code heavy},
     * the rest round-robin over the others (so {@code heavy} is the replica most clients are attached to).
     */
    public static int[] homes(int clients, int replicas, int heavy) {
        List<Integer> others = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            if (r != heavy) {
                others.add(r);
            }
        }
        int onHeavy = others.isEmpty() ? clients : (int) Math.ceil(clients * 0.6);
        int[] h = new int[clients];
        for (int i = 0; i < clients; i++) {
            h[i] = i < onHeavy ? heavy : others.get((i - onHeavy) % others.size());
        }
        return h;
    }

    /** The group reference {@code iogr} with its profiles rotated so that replica {@code first} comes first. */
    public static String startingAt(String iogr, int first) {
        Ior ior = Ior.parse(iogr);
        List<Ior.Profile> p = new ArrayList<>(ior.profiles());
        Collections.rotate(p, -first);
        return new Ior(ior.typeId(), p).stringify();
    }

    /**
     * Runs {@code homes.length} clients of {@code callsPerClient} increments each on {@code counterIogr};
     * once {@code faultAfter} calls have completed, runs {@code fault}. Returns when every client finished or
     * {@code limit} passed (clients still running then are reported as errors).
     */
    public static Result run(ORB orb, String counterIogr, int[] homes, int callsPerClient, int faultAfter,
                             Fault fault, Duration limit) throws Exception {
        ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        AtomicIntegerArray progress = new AtomicIntegerArray(homes.length);
        for (int i = 0; i < homes.length; i++) {
            int client = i;
            Counter counter = CounterHelper.narrow(orb.string_to_object(startingAt(counterIogr, homes[i])));
            Thread t = new Thread(() -> {
                for (int k = 0; k < callsPerClient; k++) {
                    long t0 = System.nanoTime();
                    int v;
                    try {
                        v = counter.increment();
                    } catch (RuntimeException e) {
                        errors.add("client " + client + " call " + k + ": " + e);
                        return;
                    }
                    calls.add(new Call(client, v, t0, System.nanoTime()));
                    progress.set(client, k + 1);
                    done.incrementAndGet();
                }
            }, "failover-client-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        long deadline = System.nanoTime() + limit.toNanos();
        threads.forEach(Thread::start);
        long faultAt = 0;
        if (fault != null) {
            while (done.get() < faultAfter && errors.isEmpty() && System.nanoTime() < deadline
                    && threads.stream().anyMatch(Thread::isAlive)) {
                Thread.sleep(1);   // polling a counter: the fault must strike mid-run, not at a fixed time
            }
            faultAt = System.nanoTime();
            fault.inject(progress);
        }
        for (int i = 0; i < threads.size(); i++) {
            Thread t = threads.get(i);
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                errors.add("client " + i + " still running after " + limit + " (" + progress.get(i) + " calls done)");
            }
        }
        return new Result(List.copyOf(calls), List.copyOf(errors), faultAt, homes.length * callsPerClient);
    }
}
