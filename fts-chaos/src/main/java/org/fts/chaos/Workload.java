package org.fts.chaos;

import org.fts.checker.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import fts_samples.HelloObj;
import fts_samples.HelloObjHelper;
import org.fts.checker.History.Kind;
import org.fts.checker.History.Outcome;
import org.fts.samples.FailoverWorkload;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.NO_RESPONSE;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.TIMEOUT;
import org.omg.CORBA.TRANSIENT;

/**
 * The chaos run's clients: threads of one FT client ORB (or each with an ORB of its own), each with its own group references (starting at
 * replica {@code client % replicas}), looping until stopped. Each operation picks: one in
 * {@value #INCREMENT_ONE_IN} an {@code increment()} of {@code counter}; otherwise a random {@code hello-k}, and
 * {@code set} of a value unique in the run ({@code c<client>-<n>}) or {@code get()}, half and half. Every
 * operation is recorded in the {@link History}, invoke and completion included.
 */
final class Workload {
    static final int INCREMENT_ONE_IN = 5;

    private final java.util.function.IntFunction<ORB> orbs;
    private final boolean fromFirst;
    private final UnaryOperator<String> references;
    private final int keys;
    private final int replicas;
    private final History history;
    private final long seed;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stop;

    /**
     * @param orbs       client {@code c}'s ORB
     * @param references the group reference of a sample object id (the replicas publish them)
     * @param fromFirst  every client starts at the first replica (else client {@code c} at {@code c % replicas})
     */
    Workload(java.util.function.IntFunction<ORB> orbs, UnaryOperator<String> references, int replicas, int clients,
             int keys, History history, long seed, boolean fromFirst) {
        this.orbs = orbs;
        this.fromFirst = fromFirst;
        this.references = references;
        this.keys = keys;
        this.replicas = replicas;
        this.history = history;
        this.seed = seed;
        for (int c = 0; c < clients; c++) {
            threads.add(client(c));
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    /**
     * Asks every client to stop after its current operation and waits, at most {@code bound} in all. Returns
     * how many are still in an operation then (their operation stays in the history as INFO, never completed).
     */
    int stop(Duration bound) throws InterruptedException {
        stop = true;
        return joinAll(threads, bound);
    }

    /** Waits for {@code threads} to end, at most {@code bound} in all; returns how many are still alive then. */
    static int joinAll(List<Thread> threads, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        int stuck = 0;
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            stuck += t.isAlive() ? 1 : 0;
        }
        return stuck;
    }

    private Thread client(int c) {
        ORB orb = orbs.apply(c);
        int start = fromFirst ? 0 : c % replicas;
        HelloObj[] hello = new HelloObj[keys];
        for (int k = 0; k < keys; k++) {
            hello[k] = HelloObjHelper.narrow(orb.string_to_object(
                    FailoverWorkload.startingAt(references.apply("hello-" + k), start)));
        }
        Counter counter = CounterHelper.narrow(orb.string_to_object(
                FailoverWorkload.startingAt(references.apply("counter"), start)));
        History.Recorder rec = history.recorder(c);
        Random random = new Random(seed * 1_000_003L + c);
        Thread t = new Thread(() -> {
            int written = 0;
            while (!stop) {
                if (random.nextInt(INCREMENT_ONE_IN) == 0) {
                    rec.invoke("counter", Kind.INCREMENT, null);
                    try {
                        rec.ok(Integer.toString(counter.increment()));
                    } catch (RuntimeException e) {
                        end(rec, e);
                    }
                    continue;
                }
                int k = random.nextInt(keys);
                if (random.nextBoolean()) {
                    String value = "c" + c + "-" + (++written);
                    rec.invoke("hello-" + k, Kind.WRITE, value);
                    try {
                        hello[k].set(value);
                        rec.ok(null);
                    } catch (RuntimeException e) {
                        end(rec, e);
                    }
                } else {
                    rec.invoke("hello-" + k, Kind.READ, null);
                    try {
                        rec.ok(hello[k].get());
                    } catch (RuntimeException e) {
                        end(rec, e);
                    }
                }
            }
        }, "chaos-client-" + c);
        t.setDaemon(true);   // a client stuck in a call must not keep the JVM alive
        return t;
    }

    private static final java.util.concurrent.atomic.AtomicInteger FAILS_SHOWN =
            new java.util.concurrent.atomic.AtomicInteger();

    private static void end(History.Recorder rec, RuntimeException e) {
        if (outcomeOf(e) == Outcome.FAIL) {
            if (FAILS_SHOWN.getAndIncrement() < 3) {   // what a certain failure was, for the report
                System.out.println("chaos: a call failed (certainly not executed): " + e);
            }
            rec.fail();
        } else {
            rec.info();
        }
    }

    /**
     * FAIL only for a system exception with COMPLETED_NO that the FT interceptor raises without retrying;
     * everything else is INFO. The interceptor retries COMM_FAILURE, TRANSIENT, TIMEOUT and NO_RESPONSE under
     * the same request id until the request expires, then raises the last attempt's exception: its COMPLETED_NO
     * speaks for that attempt only (e.g. a replica in a minority view refusing), while an earlier attempt may
     * have been cast and executed. Calling such a request failed would accuse a correct service.
     */
    static Outcome outcomeOf(RuntimeException e) {
        boolean retried = e instanceof COMM_FAILURE || e instanceof TRANSIENT || e instanceof TIMEOUT
                || e instanceof NO_RESPONSE;
        return e instanceof SystemException se && se.completed == CompletionStatus.COMPLETED_NO && !retried
                ? Outcome.FAIL : Outcome.INFO;
    }
}
