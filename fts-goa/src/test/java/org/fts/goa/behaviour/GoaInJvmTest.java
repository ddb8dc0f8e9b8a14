package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import fts_goa_test.Account;
import fts_goa_test.AccountHelper;
import fts_goa_test.Counter;
import fts_goa_test.CounterHelper;
import fts_goa_test.HelloObj;
import fts_goa_test.HelloObjHelper;
import fts_goa_test.InsufficientFunds;
import org.fts.process.Waits;
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
        CounterLoad.runAndCheck(List.of(counter(0)::increment, counter(1)::increment, counter(2)::increment), clients,
                each, base);
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
    void aRequestLargerThanTheLimitIsRefusedAtItsReplicaAndNothingHappensAnywhere() {
        hello(0).set("small");
        String big = "x".repeat((1 << 20) + 1);   // just over fts.request.max_size (1 MiB by default)
        org.omg.CORBA.IMP_LIMIT e = assertThrows(org.omg.CORBA.IMP_LIMIT.class, () -> hello(1).set(big));
        assertEquals(org.omg.CORBA.CompletionStatus.COMPLETED_NO, e.completed);
        assertTrue(e.getMessage().contains("fts.request.max_size"), e.getMessage());
        for (int i = 0; i < 3; i++) {
            assertEquals("small", hello(i).get(), "r" + i + " never saw it");
        }
        String fits = "y".repeat((1 << 20) - 64);
        hello(2).set(fits);
        assertEquals(fits, hello(0).get(), "a request within the limit goes through");
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
            assertEquals(replicas.port(i), body.port & 0xffff, "profile " + i + " is replica " + i);
            assertEquals(2, body.iiop_version.minor);
            if (key != null) {
                assertArrayEquals(key, body.object_key, "the same object key in every profile");
            }
            key = body.object_key;
            org.omg.IOP.TaggedComponent ft = java.util.Arrays.stream(body.components)
                    .filter(c -> c.tag == org.fts.ft.FtConstants.TAG_FT_GROUP).findFirst().orElseThrow();
            assertEquals(InJvmReplicas.GROUP, org.fts.ft.FtGroupComponent.decode(ft.component_data).ftDomainId());
        }
        assertEquals(hello(1).get(), HelloObjHelper.narrow(replicas.client.string_to_object(
                replicas.client.object_to_string(ref))).get(), "a client can use the IOGR");
        org.omg.CORBA.Object fromOther = replicas.goas.get(2).id_to_reference("hello".getBytes(StandardCharsets.UTF_8));
        assertEquals(replicas.client.object_to_string(ref), replicas.client.object_to_string(fromOther),
                "every replica hands out the same reference");
    }

    @Test
    void aMalformedRequestGetsASystemExceptionAndTheReplicasStayConsistent() throws Exception {
        hello(0).set("before");
        byte[] key = "fts-test/FTS-goa/hello".getBytes(StandardCharsets.US_ASCII);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(256);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 2).put((byte) 0).put((byte) 0);
        b.putInt(0);                                   // message size, filled in below
        b.putInt(7).put((byte) 3).put(new byte[3]);    // request id, response expected, reserved
        b.putShort((short) 0);                         // TargetAddress: KeyAddr
        align(b, 4);
        b.putInt(key.length).put(key);
        align(b, 4);
        b.putInt(4).put("set".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        align(b, 4);
        b.putInt(0);                                   // no service contexts
        align(b, 8);
        b.putInt(1000).put("abcd".getBytes(StandardCharsets.US_ASCII));   // a string that claims 1000 bytes
        b.putInt(8, b.position() - 12);
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", replicas.port(1))) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(b.array(), 0, b.position());
            java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
            byte[] header = new byte[12];
            in.readFully(header);
            assertEquals("GIOP", new String(header, 0, 4, StandardCharsets.US_ASCII));
            assertEquals(1, header[7], "a Reply");
            byte[] reply = new byte[java.nio.ByteBuffer.wrap(header, 8, 4).getInt()];
            in.readFully(reply);
            java.nio.ByteBuffer r = java.nio.ByteBuffer.wrap(reply);
            assertEquals(7, r.getInt(), "our request id");
            assertEquals(2, r.getInt(), "reply status SYSTEM_EXCEPTION");
        }
        for (int i = 0; i < 3; i++) {
            assertEquals("before", hello(i).get(), "replica " + i + " unchanged and serving");
        }
    }

    @Test
    void aPlainClientGetsThroughWhenTheIogrsFirstProfileIsDead() throws Exception {
        org.omg.CORBA.ORB orb = replicas.client;
        org.omg.CORBA.Object ref = replicas.goas.get(0).id_to_reference("hello".getBytes(StandardCharsets.UTF_8));
        org.omg.IOP.IOR ior = new org.jacorb.orb.ParsedIOR((org.jacorb.orb.ORB) orb, orb.object_to_string(ref)).getIOR();
        org.jacorb.orb.CDRInputStream in = new org.jacorb.orb.CDRInputStream(orb, ior.profiles[0].profile_data);
        in.openEncapsulatedArray();
        org.omg.IIOP.ProfileBody_1_1 first = org.omg.IIOP.ProfileBody_1_1Helper.read(in);
        int dead;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            dead = s.getLocalPort();   // closed again: nothing listens there
        }
        first.port = (short) dead;
        org.jacorb.orb.CDROutputStream p = new org.jacorb.orb.CDROutputStream(orb);
        p.beginEncapsulatedArray();
        org.omg.IIOP.ProfileBody_1_1Helper.write(p, first);
        org.omg.IOP.TaggedProfile[] profiles = ior.profiles.clone();
        profiles[0] = new org.omg.IOP.TaggedProfile(org.omg.IOP.TAG_INTERNET_IOP.value, p.getBufferCopy());
        org.jacorb.orb.CDROutputStream out = new org.jacorb.orb.CDROutputStream(orb);
        out.beginEncapsulatedArray();
        org.omg.IOP.IORHelper.write(out, new org.omg.IOP.IOR(ior.type_id, profiles));
        String iogr = "IOR:" + java.util.HexFormat.of().formatHex(out.getBufferCopy());
        hello(1).set("through another profile");
        assertEquals("through another profile", HelloObjHelper.narrow(orb.string_to_object(iogr)).get());
    }

    /** A GIOP 1.2 reply read off a raw socket: its status and its body, aligned as in the message. */
    private record RawReply(int status, java.nio.ByteBuffer body) {
    }

    /** Sends one GIOP 1.2 request (operation without arguments) with the given service contexts. */
    private static RawReply raw(int port, String objectKey, String op, Map<Integer, byte[]> contexts) throws Exception {
        byte[] key = objectKey.getBytes(StandardCharsets.US_ASCII);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1024
                + contexts.values().stream().mapToInt(c -> c.length + 8).sum());
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 2).put((byte) 0).put((byte) 0);
        b.putInt(0);
        b.putInt(9).put((byte) 3).put(new byte[3]);
        b.putShort((short) 0);
        align(b, 4);
        b.putInt(key.length).put(key);
        align(b, 4);
        b.putInt(op.length() + 1).put(op.getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        align(b, 4);
        b.putInt(contexts.size());
        for (Map.Entry<Integer, byte[]> c : contexts.entrySet()) {
            align(b, 4);
            b.putInt(c.getKey()).putInt(c.getValue().length).put(c.getValue());
        }
        align(b, 8);
        b.putInt(8, b.position() - 12);
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(b.array(), 0, b.position());
            java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
            byte[] header = new byte[12];
            in.readFully(header);
            byte[] msg = new byte[12 + java.nio.ByteBuffer.wrap(header, 8, 4).getInt()];
            System.arraycopy(header, 0, msg, 0, 12);
            in.readFully(msg, 12, msg.length - 12);
            java.nio.ByteBuffer r = java.nio.ByteBuffer.wrap(msg);
            r.position(12);
            assertEquals(9, r.getInt(), "our request id");
            int status = r.getInt();
            int n = r.getInt();
            for (int i = 0; i < n; i++) {
                align(r, 4);
                r.getInt();
                r.position(r.position() + r.getInt());
            }
            align(r, 8);
            return new RawReply(status, r);
        }
    }

    @Test
    void aRetriedFtRequestExecutesOnceWhicheverReplicaItReaches() throws Exception {
        int before = counter(2).value();
        Map<Integer, byte[]> ft = Map.of(org.fts.ft.FtConstants.FT_REQUEST,
                new org.fts.ft.FtRequestContext("raw-client", 42, Long.MAX_VALUE).encode());
        String key = "fts-test/FTS-goa/counter";
        RawReply first = raw(replicas.port(0), key, "increment", ft);
        RawReply retryElsewhere = raw(replicas.port(1), key, "increment", ft);
        RawReply retrySame = raw(replicas.port(0), key, "increment", ft);
        assertEquals(0, first.status(), "NO_EXCEPTION");
        int value = first.body().getInt();
        assertEquals(before + 1, value);
        assertEquals(value, retryElsewhere.body().getInt(), "the retry through another replica gets the same reply");
        assertEquals(value, retrySame.body().getInt(), "the retry through the same replica too");
        for (int i = 0; i < 3; i++) {
            assertEquals(before + 1, counter(i).value(), "executed once, at replica " + i);
        }
    }

    @Test
    void aGarbageFtRequestContextIsThatClientsErrorOnly() throws Exception {
        int before = counter(0).value();
        RawReply r = raw(replicas.port(0), "fts-test/FTS-goa/counter", "increment",
                Map.of(org.fts.ft.FtConstants.FT_REQUEST, new byte[] {0, 0, 0, 0, 0, 0, 0, 99, 1}));
        assertEquals(2, r.status(), "SYSTEM_EXCEPTION");
        byte[] id = new byte[r.body().getInt() - 1];
        r.body().get(id);
        assertTrue(new String(id, StandardCharsets.US_ASCII).contains("MARSHAL"), new String(id, StandardCharsets.US_ASCII));
        assertEquals(before, counter(0).value(), "nothing executed");
        assertEquals(before + 1, counter(1).increment(), "other clients are served");
    }

    @Test
    void anOversizedFtClientIdIsThatClientsBadParamAndTheReplicaServesOn() throws Exception {
        int before = counter(0).value();
        byte[] context = new org.fts.ft.FtRequestContext("c".repeat(70_000), 1,
                org.fts.ft.FtRequestContext.timeT(System.currentTimeMillis() + 60_000)).encode();
        RawReply r = raw(replicas.port(0), "fts-test/FTS-goa/counter", "increment",
                Map.of(org.fts.ft.FtConstants.FT_REQUEST, context));
        assertEquals(2, r.status(), "SYSTEM_EXCEPTION");
        byte[] id = new byte[r.body().getInt() - 1];
        r.body().get(id);
        assertTrue(new String(id, StandardCharsets.US_ASCII).contains("BAD_PARAM"), new String(id, StandardCharsets.US_ASCII));
        assertEquals(before, counter(0).value(), "nothing executed");
        assertEquals(before + 1, counter(0).increment(), "the same replica serves on");
    }

    private static void align(java.nio.ByteBuffer b, int n) {
        while (b.position() % n != 0) {
            b.put((byte) 0);
        }
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
