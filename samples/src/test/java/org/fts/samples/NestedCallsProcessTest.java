package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import fts_samples.Audit;
import fts_samples.AuditHelper;
import fts_samples.Bank;
import fts_samples.BankHelper;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * Nested invocations with real parts: a replicated bank (three JVMs) records every transfer with an audit service
 * that is replicated too (three more JVMs, another group). Each bank replica makes the call, all with the same
 * FT_REQUEST identity (the bank's group, the transfer's request id, the call's index), so the audit group executes
 * each once, also when a bank replica and an audit replica are killed with {@code kill -9} during the run. With
 * {@code fts.outcalls=ordered} and an audit service that is a plain server, one bank replica makes each call and
 * every replica goes on with its outcome, also when a replica is killed. Every
 * process is reaped by {@link ReplicaCluster#close()}, also when a test fails.
 */
class NestedCallsProcessTest {
    private static final Path LOGS = Path.of("target", "child-logs");
    private ReplicaCluster audit;
    private ReplicaCluster banks;
    private ORB ft;

    @AfterEach
    void stop() {
        if (ft != null) {
            ft.shutdown(false);
        }
        for (ReplicaCluster c : new ReplicaCluster[] {banks, audit}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void aPlainCalleeIsCalledByOneReplicaAndEveryReplicaGoesOnWithItsOutcome() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        audit = new ReplicaCluster("pa-" + id, 0, true, List.of(), LOGS);   // one plain server, not replicated
        banks = new ReplicaCluster("ob-" + id, 3, false, List.of("-Dfts.outcalls=ordered",
                "-Dsamples.bank.audit=" + audit.reference("audit")), LOGS);
        ft = ORB.init(new String[0], Clients.ftDefaults());
        Bank bank = BankHelper.narrow(ft.string_to_object(banks.reference("bank")));
        Audit trail = AuditHelper.narrow(ft.string_to_object(audit.reference("audit")));
        fts_samples.Account from = bank.open();
        fts_samples.Account to = bank.open();
        from.deposit(1000);
        int transfers = 40;
        for (int i = 1; i <= transfers; i++) {
            if (i == 20) {
                banks.kill(0);   // a replica that may be the one calling: another calls in its place
            }
            bank.transfer("acct-1", "acct-2", 1);
        }
        long calls = trail.count();
        // at least once; more only for a call whose maker died before its outcome was ordered (one kill here)
        assertTrue(calls >= transfers && calls <= transfers + 1, calls + " calls for " + transfers + " transfers");
        assertEquals(transfers, to.balance());
        banks.awaitEqualDigests(List.of(1, 2), Duration.ofSeconds(30));   // every replica went on with the same outcomes
    }

    /**
     * Issue 61's chaos finding, made deterministic: a replica whose whole process is stopped (SIGSTOP) past its ORB's
     * reply timeout while its servant waits for an ordered call's outcome must go on with that outcome, as the others
     * do. Each replica is stopped in turn, 2.5 s against a 1 s reply timeout, while the plain callee holds the call.
     * Where the servant's wait ran under the ORB's reply timeout, the stopped replica's servant saw {@code TIMEOUT},
     * the others the reply, and the divergence check stopped it (exit 70). A stopped replica that made the call itself
     * sees its own call time out: that outcome is ordered, so every replica sees it.
     */
    @Test
    void aReplicaStoppedPastItsReplyTimeoutWhileItsServantWaitsGoesOnWithTheOrderedOutcome() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        ORB plain = ORB.init(new String[0], Clients.orbDefaults());
        HeldAudit held = new HeldAudit();
        try {
            String auditRef = serve(plain, held);
            banks = new ReplicaCluster("sb-" + id, 3, false, List.of("-Dfts.outcalls=ordered",
                    "-Dfts.client.reply_timeout=1s", "-Dsamples.bank.audit=" + auditRef), LOGS);
            ft = ORB.init(new String[0], Clients.ftDefaults());
            Bank bank = BankHelper.narrow(ft.string_to_object(banks.reference("bank")));
            fts_samples.Account from = bank.open();
            fts_samples.Account to = bank.open();
            from.deposit(1000);
            java.util.concurrent.ExecutorService client = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                for (int stopped = 0; stopped < 3; stopped++) {
                    held.hold();
                    java.util.concurrent.Future<Object> transfer = client.submit(() -> transferOrFailure(bank));
                    assertTrue(held.awaitCalled(Duration.ofSeconds(20)), "the callee got the transfer's call");
                    banks.pause(stopped);
                    try {
                        held.release();
                        Thread.sleep(2_500);   // the fault: stopped past the 1 s reply timeout, under FD_ALL3's 6 s
                    } finally {
                        banks.resume(stopped);
                    }
                    Object outcome = transfer.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    assertTrue(outcome instanceof String || outcome instanceof org.omg.CORBA.TIMEOUT,
                            "stopped replica " + stopped + ": the transfer returned " + outcome);
                }
                String last = bank.transfer("acct-1", "acct-2", 1);
                assertTrue(last.startsWith("transfer-4: "), "the group still serves: " + last);
            } finally {
                client.shutdownNow();
            }
            banks.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));
            for (int i = 0; i < 3; i++) {
                assertTrue(banks.isAlive(i), "replica " + i + " goes on (not stopped by the divergence check)");
            }
            assertEquals(996, from.balance());
        } finally {
            held.release();
            plain.shutdown(false);
        }
    }

    /**
     * A replica cut off while its lane holds transfers behind one whose ordered call waits, then let back with a gap:
     * it must end the waiting call and every call of the transfers queued behind it at once (its state is about to be
     * replaced), reach the install's cut, take the group's state and serve. Chaos (pause, seed 2201) found a replica
     * whose queued transfers' calls waited for outcomes its blocked delivery thread could never deliver: it fell 16 MiB
     * behind and never served again. The replica cut off here holds the client's connection, so it casts all three.
     */
    @Test
    void aReplicaLetBackWithAGapEndsTheCallsOfItsQueuedExecutionsAndTakesTheState() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        ORB plain = ORB.init(new String[0], Clients.orbDefaults());
        HeldAudit held = new HeldAudit();
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(3);
        try {
            String auditRef = serve(plain, held);
            banks = new ReplicaCluster("gb-" + id, 3, false, List.of("-Dfts.outcalls=ordered",
                    "-Dsamples.bank.audit=" + auditRef), LOGS);
            ft = ORB.init(new String[0], Clients.ftDefaults());
            Bank bank = BankHelper.narrow(ft.string_to_object(banks.reference("bank")));
            fts_samples.Account from = bank.open();
            bank.open();
            from.deposit(1000);
            int holder = holder(banks.stats());
            long castBefore = banks.stats().get(holder).messages();
            held.hold();
            List<java.util.concurrent.Future<Object>> transfers = new java.util.ArrayList<>();
            transfers.add(clients.submit(() -> transferOrFailure(bank)));
            assertTrue(held.awaitCalled(Duration.ofSeconds(20)), "the callee got the first transfer's call");
            transfers.add(clients.submit(() -> transferOrFailure(bank)));
            transfers.add(clients.submit(() -> transferOrFailure(bank)));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (banks.stats().get(holder).messages() < castBefore + 3) {   // all three cast: queued on every lane
                assertTrue(System.nanoTime() < deadline, "the holder cast the three transfers");
                Thread.sleep(20);
            }
            banks.isolate(holder);   // the others exclude it, take over the waiting call, and go on
            held.release();
            for (java.util.concurrent.Future<Object> t : transfers) {
                Object outcome = t.get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(outcome instanceof String, "a transfer's outcome, through the others: " + outcome);
            }
            banks.heal(holder);   // it merges back with a gap: its queued executions are replaced by the state
            banks.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(40));
            java.nio.file.Path log = LOGS.resolve(banks.group() + "-r" + holder + ".err");
            org.fts.process.Waits.await(() -> {
                try {
                    String text = java.nio.file.Files.readString(log);
                    int gap = text.indexOf("it fetches the group's state");
                    return gap >= 0 && text.indexOf("installed the group's state", gap) > gap;
                } catch (java.io.IOException e) {
                    return false;
                }
            }, Duration.ofSeconds(10), () -> "r" + holder + "'s log (" + log + ") shows the gap, then the state installed");
            assertTrue(banks.isAlive(holder), "the replica let back goes on");
            assertEquals(997, from.balance());
        } finally {
            clients.shutdownNow();
            held.release();
            plain.shutdown(false);
        }
    }

    /** Serves {@code held} on {@code plain}'s root POA from a thread of its own; its stringified reference. */
    private static String serve(ORB plain, HeldAudit held) throws Exception {
        org.omg.PortableServer.POA root = org.omg.PortableServer.POAHelper.narrow(
                plain.resolve_initial_references("RootPOA"));
        root.the_POAManager().activate();
        String ref = plain.object_to_string(root.servant_to_reference(held));
        Thread orbThread = new Thread(plain::run, "held-audit");
        orbThread.setDaemon(true);
        orbThread.start();
        return ref;
    }

    private static Object transferOrFailure(Bank bank) {
        try {
            return bank.transfer("acct-1", "acct-2", 1);
        } catch (org.omg.CORBA.SystemException | fts_samples.UnknownAccount | fts_samples.InsufficientFunds e) {
            return e;
        }
    }

    /**
     * The replica that cast the client's three requests so far (it holds the client's connection): the one that cast
     * the most, at least three (a replica also casts a control message now and then).
     */
    private static int holder(List<org.fts.testkit.BatchCounters> stats) {
        int holder = 0;
        for (int i = 1; i < stats.size(); i++) {
            if (stats.get(i).messages() > stats.get(holder).messages()) {
                holder = i;
            }
        }
        assertTrue(stats.get(holder).messages() >= 3, "some replica cast the client's requests: " + stats);
        return holder;
    }

    /** A plain audit service that holds a call until the test releases it. */
    private static final class HeldAudit extends fts_samples.AuditPOA {
        private java.util.concurrent.CountDownLatch called = new java.util.concurrent.CountDownLatch(1);
        private java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(0);
        private long entries;

        synchronized void hold() {
            called = new java.util.concurrent.CountDownLatch(1);
            released = new java.util.concurrent.CountDownLatch(1);
        }

        boolean awaitCalled(Duration bound) throws InterruptedException {
            java.util.concurrent.CountDownLatch c;
            synchronized (this) {
                c = called;
            }
            return c.await(bound.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        synchronized void release() {
            released.countDown();
        }

        @Override
        public long record(String entry) {
            java.util.concurrent.CountDownLatch c;
            java.util.concurrent.CountDownLatch r;
            synchronized (this) {
                c = called;
                r = released;
                entries++;
            }
            c.countDown();
            try {
                r.await(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                return entries;
            }
        }

        @Override
        public synchronized long count() {
            return entries;
        }
    }

    @Test
    void aReplicatedCalleeExecutesEachCallOnceWhicheverReplicasCallsReachIt() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        audit = new ReplicaCluster("au-" + id, 3, false, List.of(), LOGS);
        banks = new ReplicaCluster("bk-" + id, 3, false, List.of("-Dsamples.bank.audit=" + audit.reference("audit")),
                LOGS);
        ft = ORB.init(new String[0], Clients.ftDefaults());
        Bank bank = BankHelper.narrow(ft.string_to_object(banks.reference("bank")));
        Audit trail = AuditHelper.narrow(ft.string_to_object(audit.reference("audit")));
        fts_samples.Account from = bank.open();
        fts_samples.Account to = bank.open();
        from.deposit(1000);
        int transfers = 60;
        for (int i = 1; i <= transfers; i++) {
            if (i == 20) {
                banks.kill(1);   // a caller replica dies: the others' calls carry the same identities
            }
            if (i == 40) {
                audit.kill(2);   // a callee replica dies: calls fail over inside the audit group
            }
            bank.transfer("acct-1", "acct-2", 1);
        }
        assertEquals(transfers, trail.count(), "each transfer recorded once, though every bank replica called");
        assertEquals(1000 - transfers, from.balance());
        assertEquals(transfers, to.balance());
        audit.awaitEqualDigests(List.of(0, 1), Duration.ofSeconds(30));
        banks.awaitEqualDigests(List.of(0, 2), Duration.ofSeconds(30));   // and the bank replicas kept the same answers
    }
}
