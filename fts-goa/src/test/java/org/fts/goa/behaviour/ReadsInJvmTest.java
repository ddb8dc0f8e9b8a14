package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.gc.FailStop;
import org.fts.gc.FailStopHook;
import org.fts.goa.ReadOnlyOperations;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.INTERNAL;
import org.omg.CORBA.TRANSIENT;
import org.omg.PortableServer.Servant;

import fts_goa_test.Counter;
import fts_goa_test.CounterHelper;

/**
 * Declared reads (docs/reads.md) on three replicas in this JVM: a read executes only at the replica it reaches and
 * sees every write answered before it; a servant may declare its reads; a replica outside the primary answers no
 * read; with agreed delivery reads are ordered; and the check mode catches a declared read that writes.
 */
class ReadsInJvmTest {
    private static final String COUNTER = "IDL:fts_goa_test/Counter:1.0";

    /** A counter that counts its reads. */
    static class CountingCounter extends CounterImpl {
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public synchronized int value() {
            reads.incrementAndGet();
            return super.value();
        }
    }

    /** A counting counter that declares {@code value} a read itself. */
    static final class DeclaringCounter extends CountingCounter implements ReadOnlyOperations {
        @Override
        public Set<String> readOperations() {
            return Set.of("value");
        }
    }

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static InJvmReplicas start(Properties p, List<CountingCounter> counters, boolean declaring)
            throws Exception {
        return new InJvmReplicas(3, p, i -> {
            CountingCounter c = declaring ? new DeclaringCounter() : new CountingCounter();
            counters.add(c);
            return List.<Servant>of(new HelloObjImpl(), c, new AccountImpl());
        });
    }

    private static Counter counter(InJvmReplicas r, int i) {
        return CounterHelper.narrow(r.at(i, "counter"));
    }

    @Test
    void aDeclaredReadExecutesOnlyWhereItArrivesAndSeesEveryWriteAnsweredBeforeIt() throws Exception {
        List<CountingCounter> counters = new CopyOnWriteArrayList<>();
        try (InJvmReplicas r = start(props("fts.reads", COUNTER + "#value"), counters, false)) {
            int[] readsThrough = new int[3];
            for (int k = 0; k < 60; k++) {
                int written = counter(r, k % 3).increment();
                int reader = (k + 1) % 3;
                assertEquals(written, counter(r, reader).value(), "a read through replica " + reader
                        + " after an increment answered by replica " + k % 3);
                readsThrough[reader]++;
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(readsThrough[i], counters.get(i).reads.get(), "reads executed at replica " + i
                        + ": only those that reached it");
                assertEquals((long) readsThrough[i], java.lang.management.ManagementFactory.getPlatformMBeanServer()
                        .getAttribute(new javax.management.ObjectName("org.fts:type=Replica,group=\"goa\",member=\"r"
                                + i + "\""), "ReadsLocal"), "replica " + i + "'s ReadsLocal (ReplicaMXBean)");
            }
        }
    }

    @Test
    void aServantDeclaresItsOwnReads() throws Exception {
        List<CountingCounter> counters = new CopyOnWriteArrayList<>();
        try (InJvmReplicas r = start(new Properties(), counters, true)) {
            counter(r, 1).increment();
            assertEquals(1, counter(r, 0).value());
            assertEquals(List.of(1, 0, 0), counters.stream().map(c -> c.reads.get()).toList());
        }
    }

    @Test
    void undeclaredAndAgreedReadsAreOrderedAndExecutedEverywhere() throws Exception {
        for (Properties p : List.of(new Properties(),
                props("fts.reads", COUNTER + "#value", "fts.delivery", "agreed"))) {
            List<CountingCounter> counters = new CopyOnWriteArrayList<>();
            try (InJvmReplicas r = start(p, counters, false)) {
                counter(r, 2).increment();
                assertEquals(1, counter(r, 0).value());
                List<Integer> expected = List.of(1, 1, 1);
                org.fts.process.Waits.await(() -> counters.stream().map(c -> c.reads.get()).toList().equals(expected),
                        java.time.Duration.ofSeconds(10), () -> "the ordered read executed at every replica, with " + p
                                + ": " + counters.stream().map(c -> c.reads.get()).toList());
            }
        }
    }

    @Test
    void aReplicaCutOffFromThePrimaryAnswersNoRead() throws Exception {
        List<CountingCounter> counters = new CopyOnWriteArrayList<>();
        try (InJvmReplicas r = start(props("fts.reads", COUNTER + "#value"), counters, false)) {
            r.network().partition(InJvmReplicas.GROUP, List.of(Set.of(r.member(0), r.member(1)), Set.of(r.member(2))));
            assertEquals(1, counter(r, 0).increment());
            assertThrows(TRANSIENT.class, () -> counter(r, 2).value(), "a read at the minority");
            assertEquals(0, counters.get(2).reads.get(), "nothing read from the minority's old state");
            assertEquals(1, counter(r, 1).value());
        }
    }

    @Test
    void aMalformedDeclarationStopsStartUpNamingTheKey() {
        org.fts.config.ConfigException e = assertThrows(org.fts.config.ConfigException.class,
                () -> new InJvmReplicas(1, props("fts.reads", "Counter.value")).close());
        assertTrue(e.getMessage().contains("fts.reads"), e.getMessage());
    }

    @Test
    void theCheckModeCatchesADeclaredReadThatWrites() throws Exception {
        List<Throwable> stopped = new CopyOnWriteArrayList<>();
        FailStopHook.Action before = FailStopHook.replace((thread, cause) -> stopped.add(cause));
        List<CountingCounter> counters = new CopyOnWriteArrayList<>();
        try (InJvmReplicas r = start(props("fts.reads", COUNTER + "#increment", "fts.reads.check", "true"), counters,
                false)) {
            INTERNAL e = assertThrows(INTERNAL.class, () -> counter(r, 1).increment());
            assertEquals(org.omg.CORBA.CompletionStatus.COMPLETED_YES, e.completed);
            // the reply leaves first, then the replica stops: wait for the stop
            org.fts.process.Waits.await(() -> !stopped.isEmpty(), java.time.Duration.ofSeconds(10),
                    () -> "the replica whose state the read changed stops");
            assertEquals(1, stopped.size(), "only that replica stops");
            String why = stopped.get(0).getMessage();
            assertTrue(why.contains("declared read increment on object") && why.contains("changed its state"), why);
            assertEquals(new ArrayList<>(List.of(0, 1, 0)), counters.stream().map(CounterImpl::valueNow).toList());
        } finally {
            FailStopHook.replace(before);
        }
    }
}
