package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.UUID;

import fts_samples.Account;
import fts_samples.AccountHelper;
import fts_samples.Bank;
import fts_samples.BankHelper;
import fts_samples.Probe;
import fts_samples.ProbeHelper;
import org.fts.gc.FailStop;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.NO_RESOURCES;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.ORB;

/**
 * Servers as they are, with real parts (three replica JVMs on JGroups, FT and plain clients, {@code kill -9}): a bank
 * opens accounts (objects of their own) and closes them while it serves; a replica that joins after a thousand were
 * opened takes them with the group's state (its servant activator makes their servants) and serves them; a closed
 * account answers OBJECT_NOT_EXIST at every replica; {@code fts.objects.max} bounds the objects; and a servant that
 * reads the wall clock is stopped by the divergence check, naming the object. Every process is reaped by
 * {@link ReplicaCluster#close()}, also when a test fails.
 */
class RuntimeObjectsProcessTest {
    private static final Path LOGS = Path.of("target", "child-logs");
    private ReplicaCluster cluster;
    private ORB ft;
    private ORB plain;

    private void start(List<String> extra) throws Exception {
        cluster = new ReplicaCluster("ro-" + UUID.randomUUID().toString().substring(0, 6), 3, false, extra, LOGS);
        ft = ORB.init(new String[0], Clients.ftDefaults());
        Properties p = Clients.orbDefaults();
        p.setProperty("jacorb.retries", "0");
        plain = ORB.init(new String[0], p);
    }

    @AfterEach
    void stop() {
        for (ORB o : new ORB[] {ft, plain}) {
            if (o != null) {
                o.shutdown(false);
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private org.omg.CORBA.Object at(int replica, String id) {
        return plain.string_to_object(Clients.corbaloc("127.0.0.1", cluster.ports().get(replica), cluster.group(), id));
    }

    @Test
    void aReplicaThatJoinsAfterAThousandAccountsServesThemAndAClosedAccountIsGoneEverywhere() throws Exception {
        start(List.of("-Dfts.divergence.window=32"));
        Bank bank = BankHelper.narrow(ft.string_to_object(cluster.reference("bank")));
        List<Account> accounts = new ArrayList<>();
        for (int i = 1; i <= 1000; i++) {
            Account a = bank.open();
            a.deposit(i);
            accounts.add(a);
        }
        for (int i = 1; i <= 100; i++) {
            bank.close("acct-" + i, "acct-1000");   // its money goes to acct-1000
        }
        assertThrows(OBJECT_NOT_EXIST.class, () -> accounts.get(0).balance(), "a closed account, through the FT client");
        long expected = 1000L * 1001 / 2;   // no money created or lost
        assertEquals(expected, bank.total());
        assertEquals(1000 + 5050, accounts.get(999).balance());

        cluster.kill(2);
        bank.transfer("acct-500", "acct-501", 100);   // while r2 is away
        cluster.restart(2, List.of());   // serves once it holds the group's state: 900 accounts it never saw opened

        Bank bankAt2 = BankHelper.narrow(at(2, "bank"));
        assertEquals(900, bankAt2.accounts());
        assertEquals(expected, bankAt2.total());
        assertEquals(400, AccountHelper.narrow(at(2, "acct-500")).balance());
        assertEquals(601, AccountHelper.narrow(at(2, "acct-501")).balance());
        AccountHelper.narrow(at(2, "acct-1000")).deposit(5);   // a joiner's account takes requests too
        assertEquals(1000 + 5050 + 5, accounts.get(999).balance());
        String statement = bankAt2.statement("acct-777");
        Instant stamped = Instant.parse(statement.substring(statement.lastIndexOf(' ') + 1));
        assertTrue(Math.abs(Duration.between(stamped, Instant.now()).toSeconds()) < 60, statement);
        for (int r = 0; r < 3; r++) {
            int replica = r;
            assertThrows(OBJECT_NOT_EXIST.class, () -> AccountHelper.narrow(at(replica, "acct-50")).balance(),
                    "a closed account at r" + replica);
        }
        Account late = bank.open();   // numbering goes on from the state r2 took
        assertEquals(0, late.balance());
        assertEquals("acct-1001", bankAt2.statement("acct-1001").split(" ")[0]);
        cluster.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));
    }

    @Test
    void aCreatePastTheBoundIsRefusedAlikeOnEveryReplica() throws Exception {
        // hello, counter, account, bank and audit, and two accounts
        start(List.of("-Dfts.objects.max=7"));
        Bank bank = BankHelper.narrow(ft.string_to_object(cluster.reference("bank")));
        bank.open();
        bank.open();
        NO_RESOURCES e = assertThrows(NO_RESOURCES.class, bank::open);
        assertTrue(e.getMessage() == null || !e.getMessage().isEmpty(), String.valueOf(e));
        for (int r = 0; r < 3; r++) {
            assertEquals(2, BankHelper.narrow(at(r, "bank")).accounts(), "r" + r);
        }
        bank.close("acct-1", "acct-2");
        bank.open();   // room again
        cluster.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));
    }

    @Test
    void aServantThatReadsTheWallClockIsStoppedWithinAWindowNamingTheObject() throws Exception {
        int window = 8;
        start(List.of("-Dsamples.wall_clock_probe=true", "-Dfts.divergence.window=" + window));
        Probe probe = ProbeHelper.narrow(at(0, "probe"));   // through r0, which may itself stop: a plain client
        int calls = 0;
        while (calls < 50 && cluster.isAlive(0) && cluster.isAlive(1) && cluster.isAlive(2)) {
            try {
                probe.wall_clock();
                calls++;
            } catch (org.omg.CORBA.SystemException stopped) {
                break;   // r0 stopped, or lost its majority
            }
        }
        List<Integer> exited = new ArrayList<>();
        Waits.await(() -> {
            exited.clear();
            for (int r = 0; r < 3; r++) {
                if (!cluster.isAlive(r)) {
                    exited.add(r);
                }
            }
            return !exited.isEmpty();
        }, Duration.ofSeconds(30), () -> "a replica stops");
        assertTrue(calls <= 3 * window, "caught within a window and its digests' order round: " + calls + " calls");
        int r = exited.get(0);
        OptionalInt status = cluster.awaitExit(r, Duration.ofSeconds(10));
        assertEquals(FailStop.EXIT_CODE, status.orElse(-1), "r" + r + " halted as a fail-stop");
        String log = Files.readString(LOGS.resolve(cluster.group() + "-r" + r + ".err"));
        assertTrue(log.contains("diverged from the group at position") && log.contains("wall_clock on object 'probe'"),
                "r" + r + " named the object and the operation");
    }
}
