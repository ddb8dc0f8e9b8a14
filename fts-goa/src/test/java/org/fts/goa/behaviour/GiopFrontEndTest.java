package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Properties;

import fts_goa_test.HelloObjHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The GIOP corners of the adaptor's own listener (docs/frontend.md), with raw bytes on a socket: GIOP 1.0 (its reply
 * body aligned by a padding context), 1.2 fragments, LocateRequest, a target not addressed by key, and messages that
 * are not GIOP 1.0-1.2. On Netty's epoll transport ({@code fts.iiop.transport=epoll}, where the event loop writes
 * every reply); the other tests run on the JDK's selector (the default).
 */
class GiopFrontEndTest {
    private static final byte[] KEY = "fts-test/FTS-goa/hello".getBytes(StandardCharsets.US_ASCII);
    private static InJvmReplicas replicas;

    @BeforeAll
    static void start() throws Exception {
        Properties p = new Properties();
        p.setProperty(InJvmReplicas.FRONT_END, "on");
        p.setProperty("fts.iiop.transport", "epoll");   // epoll here; every other test has the JDK's selector (nio)
        replicas = new InJvmReplicas(1, p);
        HelloObjHelper.narrow(replicas.at(0, "hello")).set("front end");
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    @Test
    void aGiop10RequestIsAnsweredInGiop10WithItsBodyAligned() throws Exception {
        ByteBuffer b = header(0, 0);
        // FT_GROUP_VERSION 0: the reply carries the group's version and its current reference, contexts of any
        // length, after which a padding context aligns the body
        byte[] version = new org.fts.ft.FtGroupVersionContext(0).encode();
        b.putInt(1).putInt(org.fts.ft.FtConstants.FT_GROUP_VERSION).putInt(version.length).put(version);
        b.putInt(21).put((byte) 1);                   // request id, response expected
        align(b, 4);
        b.putInt(KEY.length).put(KEY);
        align(b, 4);
        b.putInt(4).put("get".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        align(b, 4);
        b.putInt(0);                                  // requesting principal
        ByteBuffer r = exchange(b);
        assertEquals(0, r.get(5), "a GIOP 1.0 reply");
        assertEquals(1, r.get(7), "a Reply");
        r.position(12);
        int contexts = r.getInt();
        java.util.List<Integer> ids = new java.util.ArrayList<>();
        for (int i = 0; i < contexts; i++) {
            align(r, 4);
            ids.add(r.getInt());
            int length = r.getInt();
            r.position(r.position() + length);
        }
        assertEquals(java.util.List.of(org.fts.ft.FtConstants.FT_GROUP_VERSION,
                org.fts.ft.FtConstants.FTS_GROUP_REFERENCE), ids.subList(0, 2), "the group's version and reference");
        align(r, 4);
        assertEquals(21, r.getInt(), "our request id");
        assertEquals(0, r.getInt(), "NO_EXCEPTION");
        assertEquals(0, r.position() % 8, "the body starts 8-aligned, as it was captured");
        assertEquals("front end", string(r));
    }

    @Test
    void giop12FragmentsAreReassembled() throws Exception {
        byte[] whole = RawGiop.getRequest("fts-test/FTS-goa/hello", 33);
        int first = 16;   // body bytes in the first message (a multiple of 8, as GIOP 1.2 asks)
        ByteBuffer a = ByteBuffer.allocate(12 + first).put(whole, 0, 12).put(whole, 12, first);
        a.put(6, (byte) 2).putInt(8, first);         // more fragments follow
        ByteBuffer f = ByteBuffer.allocate(16 + whole.length - 12 - first);
        f.put(whole, 0, 8).put(6, (byte) 0).put(7, (byte) 7).putInt(8, f.capacity() - 12).position(12);
        f.putInt(33).put(whole, 12 + first, whole.length - 12 - first);
        ByteBuffer r = exchange(ByteBuffer.wrap(concat(a.array(), f.array())));
        r.position(12);
        assertEquals(33, r.getInt());
        assertEquals(0, r.getInt(), "NO_EXCEPTION");
    }

    /**
     * A LocateRequest finds every id of the group's adaptor: an object a request created may exist in the group before
     * this replica executed that request, so the answer is a hint, and the request itself is ordered and answered alike
     * everywhere (OBJECT_NOT_EXIST for an id that names no object then). A key of no adaptor of the group is unknown.
     */
    @Test
    void aLocateRequestFindsTheGroupsAdaptorAndTheRequestItselfAnswersForTheObject() throws Exception {
        assertEquals(1, locate(KEY), "OBJECT_HERE");
        assertEquals(1, locate("fts-test/FTS-goa/nobody".getBytes(StandardCharsets.US_ASCII)), "OBJECT_HERE");
        assertEquals(0, locate("fts-test/FTS-other/hello".getBytes(StandardCharsets.US_ASCII)), "UNKNOWN_OBJECT");
        ByteBuffer r = exchange(ByteBuffer.wrap(RawGiop.getRequest("fts-test/FTS-goa/nobody", 61)));
        r.position(12);
        assertEquals(61, r.getInt());
        assertEquals(2, r.getInt(), "SYSTEM_EXCEPTION");
        r.position(24);   // past the (empty) service contexts, the body 8-aligned: the exception's repository id
        int length = r.getInt();
        assertEquals("IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0",
                new String(r.array(), r.position(), length - 1, StandardCharsets.US_ASCII));
    }

    @Test
    void aTargetNotAddressedByKeyIsAskedForTheKey() throws Exception {
        ByteBuffer b = header(2, 0);
        b.putInt(41).put((byte) 3).put(new byte[3]);
        b.putShort((short) 1);                        // ProfileAddr
        align(b, 4);
        b.putInt(0).putInt(0);                        // an empty TaggedProfile
        ByteBuffer r = exchange(b);
        r.position(12);
        assertEquals(41, r.getInt());
        assertEquals(5, r.getInt(), "NEEDS_ADDRESSING_MODE");
    }

    @Test
    void whatIsNotGiop10To12GetsAMessageErrorAndTheConnectionCloses() throws Exception {
        for (byte[] bad : new byte[][] {"GIOX\1\2\0\0\0\0\0\0".getBytes(StandardCharsets.ISO_8859_1),
                                        "GIOP\1\3\0\0\0\0\0\0".getBytes(StandardCharsets.ISO_8859_1),
                                        "GIOP\1\2\0\1\0\0\0\0".getBytes(StandardCharsets.ISO_8859_1)}) {
            try (Socket s = new Socket("127.0.0.1", replicas.port(0))) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(bad);
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] reply = new byte[12];
                in.readFully(reply);
                assertArrayEquals("GIOP".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(reply, 4));
                assertEquals(6, reply[7], "MessageError for " + new String(bad, StandardCharsets.ISO_8859_1).trim());
                assertEquals(-1, in.read(), "then the connection closes");
            }
        }
        assertEquals("front end", HelloObjHelper.narrow(replicas.at(0, "hello")).get(), "the replica serves on");
    }

    @Test
    void aTakenPortStopsTheStartNamingTheKey() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            Properties p = new Properties();
            p.setProperty(InJvmReplicas.FRONT_END, "off");   // the harness leaves fts.iiop.port as given
            p.setProperty("fts.iiop.port", Integer.toString(taken.getLocalPort()));
            // a start that may succeed later (the port freed): not a refusal (the runner exits 1, systemd restarts it)
            org.fts.config.ListenFailure e = org.junit.jupiter.api.Assertions.assertThrows(
                    org.fts.config.ListenFailure.class, () -> new InJvmReplicas(1, p).close());
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("fts.iiop.port"), e.getMessage());
        }
    }

    private static int locate(byte[] key) throws Exception {
        ByteBuffer b = header(2, 3);
        b.putInt(51).putShort((short) 0);
        align(b, 4);
        b.putInt(key.length).put(key);
        ByteBuffer r = exchange(b);
        assertEquals(4, r.get(7), "a LocateReply");
        r.position(12);
        assertEquals(51, r.getInt());
        return r.getInt();
    }

    private static ByteBuffer header(int minor, int type) {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) minor).put((byte) 0)
                .put((byte) type).putInt(0);
        return b;
    }

    /** Sends {@code b} (its size filled in when it was built here) and reads one message back. */
    private static ByteBuffer exchange(ByteBuffer b) throws IOException {
        byte[] out = b.hasArray() && b.position() > 0 ? Arrays.copyOf(b.array(), b.position()) : b.array();
        if (b.position() > 0) {
            ByteBuffer.wrap(out).putInt(8, out.length - 12);
        }
        try (Socket s = new Socket("127.0.0.1", replicas.port(0))) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(out);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] h = new byte[12];
            in.readFully(h);
            byte[] m = Arrays.copyOf(h, 12 + ByteBuffer.wrap(h, 8, 4).getInt());
            in.readFully(m, 12, m.length - 12);
            return ByteBuffer.wrap(m);
        }
    }

    private static String string(ByteBuffer r) {
        align(r, 4);
        byte[] s = new byte[r.getInt() - 1];
        r.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static void align(ByteBuffer b, int n) {
        while (b.position() % n != 0) {
            b.put((byte) 0);
        }
    }
}
