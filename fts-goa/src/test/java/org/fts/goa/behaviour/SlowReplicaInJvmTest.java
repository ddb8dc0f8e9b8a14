package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import fts_goa_test.Counter;
import fts_goa_test.CounterHelper;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;

/**
 * One replica of three executes slowly (its counter sleeps 2 ms an increment) while clients of another keep the
 * group ordering faster than that. With {@code fts.delivery.max_backlog} at 32 KiB:
 * <ul>
 *   <li>the slow replica's queue of ordered requests never holds more than the bound;</li>
 *   <li>it falls behind (the group layer drops what would queue past the bound, and tells it), stops serving,
 *       fetches the group's state, and does so again while it stays slow;</li>
 *   <li>the other replicas never fall behind, and every call of the clients succeeds;</li>
 *   <li>once it is fast again it serves, and the three counters equal the increments acknowledged.</li>
 * </ul>
 * Without the bound (the queue grows with the backlog: docs/goa.md, "A replica that executes slowly") the slow
 * replica never falls behind, and the test fails waiting for it.
 */
class SlowReplicaInJvmTest {
    private static final int BOUND = 32 * 1024;
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** A counter whose increments take 2 ms while {@link #slow} is set. */
    static final class SlowCounter extends CounterImpl {
        final AtomicBoolean slow = new AtomicBoolean(true);

        @Override
        public int increment() {
            if (slow.get()) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.increment();
        }
    }

    @Test
    void aSlowReplicaFallsBehindWithinItsBoundFetchesTheStateAndTheOthersGoOn() throws Exception {
        SlowCounter slowOne = new SlowCounter();
        Properties p = new Properties();
        p.setProperty(GroupConfig.MAX_BACKLOG.name(), Integer.toString(BOUND));
        try (InJvmReplicas replicas = new InJvmReplicas(3, p, i -> List.of(new HelloObjImpl(),
                i == 2 ? slowOne : new CounterImpl(), new AccountImpl()))) {
            GroupChannel slowChannel = replicas.channel(2);
            AtomicLong mostQueued = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger acknowledged = new AtomicInteger();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread sampler = new Thread(() -> {
                while (!stop.get()) {
                    mostQueued.accumulateAndGet(slowChannel.diagnostics().pendingBytes(), Math::max);
                    java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                }
            }, "backlog-sampler");
            sampler.start();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                Counter counter = CounterHelper.narrow(replicas.at(c % 2, "counter"));   // replicas 0 and 1
                Thread t = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            counter.increment();
                            acknowledged.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }, "client-" + c);
                t.start();
                clients.add(t);
            }
            try {
                Waits.await(() -> slowChannel.diagnostics().fellBehind() >= 2 || !failures.isEmpty(), WAIT,
                        () -> "the slow replica to fall behind twice (" + slowChannel.diagnostics().fellBehind() + " so far, "
                                + slowChannel.diagnostics().pendingBytes() + " bytes queued, " + acknowledged + " calls)");
            } finally {
                stop.set(true);
                for (Thread t : clients) {
                    t.join(WAIT.toMillis());
                }
                sampler.join(WAIT.toMillis());
            }
            assertTrue(failures.isEmpty(), () -> "every call succeeds: " + failures);
            assertTrue(mostQueued.get() <= BOUND, "the slow replica queued at most the bound: " + mostQueued);
            assertEquals(0, replicas.channel(0).diagnostics().fellBehind(), "replica 0 kept up");
            assertEquals(0, replicas.channel(1).diagnostics().fellBehind(), "replica 1 kept up");

            slowOne.slow.set(false);
            // A shed counts from its first dropped broadcast, and the replica hears of it only once what was queued
            // before has executed: until the queue is drained it may still be serving, about to stop.
            Waits.await(() -> slowChannel.diagnostics().pendingDeliveries() == 0, WAIT, () -> "the slow replica drains its queue");
            assertTrue(replicas.goas.get(2).awaitServing(WAIT), () -> "the slow replica serves again: it "
                    + replicas.goas.get(2).notServing());
            Counter viaSlow = CounterHelper.narrow(replicas.at(2, "counter"));
            int[] read = {-1};
            Waits.await(() -> {
                try {   // it may still refuse (TRANSIENT) while it fetches a state; once it answers, exactly
                    read[0] = viaSlow.value();
                    return true;
                } catch (org.omg.CORBA.TRANSIENT e) {
                    return false;
                }
            }, WAIT, () -> "the slow replica answers");
            assertEquals(acknowledged.get(), read[0], "the slow replica holds every acknowledged increment");
            for (int i = 0; i < 3; i++) {
                int r = i;
                Waits.await(() -> ((CounterImpl) replicas.servants.get(r).get(1)).valueNow() == acknowledged.get(),
                        WAIT, () -> "replica " + r + "'s counter to equal " + acknowledged + ": "
                                + ((CounterImpl) replicas.servants.get(r).get(1)).valueNow());
            }
        }
    }
}
