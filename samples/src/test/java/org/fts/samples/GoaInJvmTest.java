package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import fts_samples.Account;
import fts_samples.AccountHelper;
import fts_samples.Counter;
import fts_samples.CounterHelper;
import fts_samples.HelloObj;
import fts_samples.HelloObjHelper;
import fts_samples.InsufficientFunds;
import org.fts.testing.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.UNKNOWN;

/** Three replicas in one JVM (three JacORB ORBs, in-JVM group binding), plain CORBA clients. */
class GoaInJvmTest {
    private static InJvmReplicas replicas;

    @BeforeAll
    static void start() throws Exception {
        replicas = new InJvmReplicas(3);
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    private static HelloObj hello(int i) {
        return HelloObjHelper.narrow(replicas.at(i, "hello"));
    }

    private static Counter counter(int i) {
        return CounterHelper.narrow(replicas.at(i, "counter"));
    }

    private static Account account(int i) {
        return AccountHelper.narrow(replicas.at(i, "account"));
    }

    @Test
    void setThroughOneReplicaGetThroughAnother() {
        String s = "héllo, wörld ✓ " + System.nanoTime();
        hello(0).set(s);
        assertEquals(s, hello(1).get());
        assertEquals(s, hello(2).get());
    }

    @Test
    void twentyConcurrentClientsOverThreeReplicasSeeEachValueOnce() throws Exception {
        int clients = 20;
        int each = 50;
        int base = counter(0).value();
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        for (int c = 0; c < clients; c++) {
            Counter mine = counter(c % 3);
            Thread t = new Thread(() -> {
                try {
                    for (int k = 0; k < each; k++) {
                        seen.add(mine.increment());
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(60).toMillis());
        }
        assertEquals(List.of(), errors);
        List<Integer> sorted = new ArrayList<>(seen);
        Collections.sort(sorted);
        assertEquals(IntStream.rangeClosed(base + 1, base + clients * each).boxed().toList(), sorted,
                "every value returned exactly once: no duplicate, no gap");
        for (int i = 0; i < 3; i++) {
            assertEquals(base + clients * each, counter(i).value(), "replica " + i);
            assertEquals(base + clients * each, ((CounterImpl) replicas.servants.get(i).get(1)).valueNow(),
                    "servant state at replica " + i);
        }
    }

    @Test
    void aUserExceptionReachesTheClientAndChangesNothing() {
        Account a = account(0);
        long before = a.balance();
        a.deposit(100);
        InsufficientFunds e = assertThrows(InsufficientFunds.class, () -> account(1).withdraw(before + 1000));
        assertEquals(before + 100, e.balance);
        assertEquals(before + 1000, e.requested);
        for (int i = 0; i < 3; i++) {
            assertEquals(before + 100, account(i).balance());
        }
    }

    @Test
    void aServantRuntimeExceptionIsTheSameUnknownEverywhereAndStateStaysConsistent() {
        long before = account(2).balance();
        UNKNOWN e = assertThrows(UNKNOWN.class, () -> account(2).deposit(-5));
        assertTrue(e.getMessage() == null || !e.getMessage().contains("at org."), "no stack trace to the client");
        account(0).deposit(1);
        for (int i = 0; i < 3; i++) {
            assertEquals(before + 1, account(i).balance(), "replica " + i + " still serves, consistently");
        }
    }

    @Test
    void anUnknownObjectIsObjectNotExist() {
        assertThrows(OBJECT_NOT_EXIST.class, () -> HelloObjHelper.unchecked_narrow(replicas.at(1, "nobody")).get());
        assertEquals(hello(1).get(), hello(1).get(), "the replica serves on");
    }

    @Test
    void referencesAreIogrsWithEveryReplicaAndTheSameObjectKey() throws Exception {
        org.omg.CORBA.Object ref = replicas.goas.get(1).id_to_reference("hello".getBytes(StandardCharsets.UTF_8));
        org.omg.IOP.IOR ior = new org.jacorb.orb.ParsedIOR((org.jacorb.orb.ORB) replicas.client,
                replicas.client.object_to_string(ref)).getIOR();
        assertEquals(3, ior.profiles.length, "one profile per replica");
        byte[] key = null;
        for (int i = 0; i < 3; i++) {
            org.jacorb.orb.CDRInputStream in = new org.jacorb.orb.CDRInputStream(replicas.client, ior.profiles[i].profile_data);
            in.openEncapsulatedArray();
            org.omg.IIOP.ProfileBody_1_1 body = org.omg.IIOP.ProfileBody_1_1Helper.read(in);
            assertEquals(replicas.ports.get(i), body.port & 0xffff, "profile " + i + " is replica " + i);
            assertEquals(2, body.iiop_version.minor);
            if (key != null) {
                assertArrayEquals(key, body.object_key, "the same object key in every profile");
            }
            key = body.object_key;
            org.omg.IOP.TaggedComponent ft = java.util.Arrays.stream(body.components)
                    .filter(c -> c.tag == org.fts.ft.FtConstants.TAG_FT_GROUP).findFirst().orElseThrow();
            assertEquals("samples", org.fts.ft.FtGroupComponent.decode(ft.component_data).ftDomainId());
        }
        assertEquals(hello(1).get(), HelloObjHelper.narrow(replicas.client.string_to_object(
                replicas.client.object_to_string(ref))).get(), "a client can use the IOGR");
        org.omg.CORBA.Object fromOther = replicas.goas.get(2).id_to_reference("hello".getBytes(StandardCharsets.UTF_8));
        assertEquals(replicas.client.object_to_string(ref), replicas.client.object_to_string(fromOther),
                "every replica hands out the same reference");
    }

    @Test
    void onewayCallsAreExecutedEverywhere() {
        int before = counter(0).value();
        counter(1).add(7);
        Waits.await(() -> counter(2).value() == before + 7, Duration.ofSeconds(10), () -> "the oneway add at replica 2");
        for (int i = 0; i < 3; i++) {
            assertEquals(before + 7, counter(i).value());
        }
    }
}
