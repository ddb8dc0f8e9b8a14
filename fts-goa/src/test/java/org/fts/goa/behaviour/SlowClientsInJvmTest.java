package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Properties;
import java.nio.ByteBuffer;
import java.time.Duration;

import org.fts.goa.giop.GiopGuard;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clients that start a message and stall, either way, against an in-JVM replica (real loopback sockets) with a
 * 64 KiB intake budget and {@code fts.giop.io_timeout=1s}:
 * <ul>
 *   <li>a <b>slow loris</b> sends a header declaring as much as the whole budget, then a few bytes, then
 *       nothing: while it holds the budget, no other client's request can be read; it is closed after the
 *       timeout, and a well-behaved client is served;</li>
 *   <li>a client that <b>never reads</b> pipelines 500 get()s of a 60 KB value: their replies fill the socket's
 *       buffers and block JacORB's request threads, one by one, in their writes; the watchdog closes the
 *       connection after the timeout, the threads are freed, and a well-behaved client is served.</li>
 * </ul>
 * Without the watchdog ({@code fts.giop.io_timeout=1440m}) both well-behaved calls time out.
 */
class SlowClientsInJvmTest {
    private static final int BUDGET = 64 * 1024;
    private static final String KEY = "fts-test/FTS-goa/hello";
    private static InJvmReplicas replicas;

    @BeforeAll
    static void start() throws Exception {
        Properties p = new Properties();
        p.setProperty(GiopGuard.INTAKE_MAX_BYTES.name(), Integer.toString(BUDGET));
        p.setProperty(GiopGuard.IO_TIMEOUT.name(), "1s");
        replicas = new InJvmReplicas(1, p);
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    /**
     * A well-behaved client over a socket of its own (an in-JVM ORB client would take JacORB's in-process path,
     * around the guard): one set() of {@code chars} characters, which must succeed within 15 s. A system
     * exception (JacORB's TRANSIENT while its request queue is full of the bad client's requests) is retried on a
     * new connection, as an FT client retries.
     */
    private static void set(int chars) throws Exception {
        long end = System.nanoTime() + 15_000_000_000L;
        for (int attempt = 1; ; attempt++) {
            try (Socket s = new Socket("127.0.0.1", replicas.port(0))) {
                s.setSoTimeout(15_000);
                s.getOutputStream().write(RawGiop.setRequest(KEY, 77, chars));
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] reply = new byte[20];
                in.readFully(reply);
                ByteBuffer r = ByteBuffer.wrap(reply);
                assertEquals(1, reply[7], "a Reply");
                assertEquals(77, r.getInt(12), "to our request");
                int status = r.getInt(16);
                if (status == 0) {
                    return;   // NO_EXCEPTION
                }
                assertEquals(2, status, "NO_EXCEPTION, or a SYSTEM_EXCEPTION to retry");
                assertTrue(System.nanoTime() < end, "still refused after " + attempt + " attempts in 15 s");
            }
        }
    }

    /** Reads until the replica closes the connection; fails if it is still open after {@code seconds}. */
    private static void assertClosedWithin(Socket s, int seconds) throws Exception {
        s.setSoTimeout(seconds * 1000);
        InputStream in = s.getInputStream();
        byte[] sink = new byte[64 * 1024];
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long read = 0;
        try {
            for (int n; (n = in.read(sink)) >= 0; read += n) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("still open after " + seconds + " s (" + read + " bytes read)");
                }
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("still open after " + seconds + " s (" + read + " bytes read)", e);
        } catch (SocketException reset) {
            // closed with bytes unread on either side: a reset is a close too
        }
    }

    @Test
    void aSlowLorisHoldingTheWholeBudgetIsClosedAndOthersAreServed() throws Exception {
        long timedOut = GiopGuard.connectionsTimedOut();
        try (Socket loris = new Socket("127.0.0.1", replicas.port(0))) {
            OutputStream out = loris.getOutputStream();
            out.write(RawGiop.startedRequest(BUDGET - 12, 5));   // header + 5 bytes: the budget is spent
            out.flush();
            set(100);   // served once the loris is closed
            assertClosedWithin(loris, 10);
        }
        assertTrue(GiopGuard.connectionsTimedOut() > timedOut, "closed by the watchdog");
    }

    @Test
    void aClientThatNeverReadsItsRepliesIsClosedAndOthersAreServed() throws Exception {
        set(60_000);
        long timedOut = GiopGuard.connectionsTimedOut();
        try (Socket deaf = new Socket("127.0.0.1", replicas.port(0))) {
            deaf.setReceiveBufferSize(4096);
            OutputStream out = deaf.getOutputStream();
            for (int k = 1; k <= 500; k++) {   // 30 MB of replies, far more than the socket buffers hold
                out.write(RawGiop.getRequest(KEY, k));
            }
            out.flush();
            Waits.await(() -> GiopGuard.connectionsTimedOut() > timedOut, Duration.ofSeconds(30),
                    () -> "the watchdog closed the client that does not read");
            set(100);   // served: the request threads its replies held are free again
        } catch (SocketException reset) {
            // closed while we were still sending: also closed
        }
        assertTrue(GiopGuard.connectionsTimedOut() > timedOut, "closed by the watchdog");
    }
}
