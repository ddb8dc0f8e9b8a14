package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import fts_goa_test.HelloObj;
import fts_goa_test.HelloObjHelper;
import org.fts.goa.giop.GiopGuard;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The GIOP message size guard on an in-JVM replica (real loopback sockets), limit 64 KiB: a header declaring
 * more closes its connection at once, before JacORB allocates anything, and the replica serves on; a message
 * of exactly the limit is served.
 */
class GiopGuardInJvmTest {
    private static final int LIMIT = 64 * 1024;
    private static final String KEY = "fts-test/FTS-goa/hello";

    private static InJvmReplicas replicas;

    @BeforeAll
    static void start() throws Exception {
        Properties p = new Properties();
        p.setProperty(GiopGuard.MAX_MESSAGE_SIZE.name(), Integer.toString(LIMIT));
        replicas = new InJvmReplicas(1, p);
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    private static HelloObj hello() {
        return HelloObjHelper.narrow(replicas.at(0, "hello"));
    }

    /** A bare GIOP 1.2 Request header declaring {@code size} bytes. */
    private static byte[] header(long size) {
        return ByteBuffer.allocate(12).put("GIOP".getBytes(StandardCharsets.US_ASCII))
                .put(new byte[] {1, 2, 0, 0}).putInt((int) size).array();
    }

    /** Sends {@code bytes} and reads until the replica closes the connection: -1 or a reset; fails on a timeout. */
    private static void assertClosedAfterSending(byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", replicas.port(0))) {
            s.setSoTimeout(10_000);
            long t0 = System.nanoTime();
            try {
                OutputStream out = s.getOutputStream();
                out.write(bytes);
                out.flush();
            } catch (SocketException reset) {
                return;   // closed while we were still sending the rest
            }
            InputStream in = s.getInputStream();
            try {
                assertEquals(-1, in.read(), "the replica closed the connection without answering");
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the connection was still open after 10 s", e);
            } catch (SocketException reset) {
                // closed with our unread bytes pending: a reset is a close too
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 5_000, "closed promptly, not after " + ms + " ms");
        }
    }

    /** Runs {@code body} with stderr (where slf4j-simple logs, JacORB included) also copied into the result. */
    private static String stderrDuring(ThrowingRunnable body) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                copy.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                original.write(b, off, len);
                copy.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(tee);
        try {
            body.run();
        } finally {
            System.setErr(original);
        }
        return copy.toString(StandardCharsets.UTF_8);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aHeaderDeclaringOneGibIsClosedAtOnceWithoutAnAllocationAndTheReplicaServesOn() throws Exception {
        hello().set("before");
        long refused = GiopGuard.connectionsRefused();
        String log = stderrDuring(() -> {
            org.slf4j.LoggerFactory.getLogger(GiopGuardInJvmTest.class).warn("stderr capture check");
            assertClosedAfterSending(header(1L << 30));
            assertClosedAfterSending(header(0xFFFF_FFF0L));   // negative as JacORB reads it
        });
        assertEquals(refused + 2, GiopGuard.connectionsRefused());
        assertTrue(log.contains("stderr capture check"), "the log was captured: " + log);
        assertFalse(log.contains("NO_MEMORY") || log.contains("OutOfMemory"), log);
        assertEquals("before", hello().get(), "the replica serves on");
        hello().set("after");
        assertEquals("after", hello().get());
    }

    @Test
    void aHeaderDeclaringOneByteOverTheLimitIsClosed() throws Exception {
        long refused = GiopGuard.connectionsRefused();
        assertClosedAfterSending(header(LIMIT + 1));
        assertEquals(refused + 1, GiopGuard.connectionsRefused());
        hello().set("still serving");
        assertEquals("still serving", hello().get());
    }

    @Test
    void aRequestOfExactlyTheLimitIsServed() throws Exception {
        byte[] key = KEY.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(12 + LIMIT);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put(new byte[] {1, 2, 0, 0}).putInt(LIMIT);
        b.putInt(5).put((byte) 3).put(new byte[3]);   // request id, response expected, reserved
        b.putShort((short) 0);                        // TargetAddress: KeyAddr
        align(b, 4);
        b.putInt(key.length).put(key);
        align(b, 4);
        b.putInt(4).put("set".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        align(b, 4);
        b.putInt(0);                                  // no service contexts
        align(b, 8);
        int chars = b.remaining() - 5;                // the string's length, its characters, its NUL: to the limit
        b.putInt(chars + 1).put("x".repeat(chars).getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        assertEquals(12 + LIMIT, b.position());
        try (Socket s = new Socket("127.0.0.1", replicas.port(0))) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(b.array());
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] reply = new byte[20];
            in.readFully(reply);
            ByteBuffer r = ByteBuffer.wrap(reply);
            assertEquals(1, reply[7], "a Reply");
            assertEquals(5, r.getInt(12), "to our request");
            assertEquals(0, r.getInt(16), "NO_EXCEPTION");
        }
        assertEquals("x".repeat(chars), hello().get());
    }

    @Test
    void aCallJustUnderTheLimitThroughAStubIsServed() {
        String s = "é".repeat((LIMIT - 400) / 2);   // two bytes each in UTF-8: a message a few hundred bytes short
        hello().set(s);
        assertEquals(s, hello().get());
    }

    @Test
    void aFragmentedMessageThatGrowsOverTheLimitIsClosed() throws Exception {
        int part = 16 * 1024;
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        stream.writeBytes(fragment(0, part, 11));   // a Request, more fragments follow
        for (int i = 0; i < 4; i++) {
            stream.writeBytes(fragment(7, part, 11));
        }
        long refused = GiopGuard.connectionsRefused();
        assertClosedAfterSending(stream.toByteArray());
        assertEquals(refused + 1, GiopGuard.connectionsRefused());
        hello().set("served after fragments");
        assertEquals("served after fragments", hello().get());
    }

    /** A GIOP 1.2 message of {@code type} with the more-fragments bit, {@code size} bytes, request id first. */
    private static byte[] fragment(int type, int size, int requestId) {
        return ByteBuffer.allocate(12 + size).put("GIOP".getBytes(StandardCharsets.US_ASCII))
                .put(new byte[] {1, 2, 2, (byte) type}).putInt(size).putInt(requestId).array();
    }

    private static void align(ByteBuffer b, int n) {
        while (b.position() % n != 0) {
            b.put((byte) 0);
        }
    }
}
