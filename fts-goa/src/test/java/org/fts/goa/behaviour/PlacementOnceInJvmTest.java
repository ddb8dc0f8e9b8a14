package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;

import org.fts.ft.Ior;
import org.junit.jupiter.api.Test;

/**
 * Placement forwards a connection at most once, and never back (docs/placement.md): the reference a forwarded
 * connection is given has its object keys marked, and a request with a marked key is served where it arrives, even
 * at a replica that forwards unmarked connections at that moment. The load is connections held open at r0 against
 * none at r1 (placement forwards at a margin of 2): new ones are opened until r0 forwards one.
 */
class PlacementOnceInJvmTest {
    private static final byte[] KEY = "fts-test/FTS-goa/hello".getBytes(StandardCharsets.US_ASCII);

    private record RawReply(int status, byte[] message, int bodyStart) {
    }

    @Test
    void aForwardedConnectionIsNeverForwardedAgainNorBack() throws Exception {
        Properties p = new Properties();
        p.setProperty("fts.placement", "load");
        List<Socket> held = new ArrayList<>();
        try (InJvmReplicas r = new InJvmReplicas(2, p)) {
            String r1 = "127.0.0.1:" + r.port(1);
            RawReply forward = null;
            long end = System.nanoTime() + 20_000_000_000L;
            while (forward == null && System.nanoTime() < end) {   // until both serve and r0 counts 2 more than r1
                Socket s = new Socket("127.0.0.1", r.port(0));
                held.add(s);
                RawReply reply = call(s, KEY);
                assertTrue(reply.status() == 0 || reply.status() == 3, "served or forwarded: " + reply.status());
                forward = reply.status() == 3 ? reply : null;
            }
            assertTrue(forward != null, () -> "r0 forwarded no connection: " + r.goas.get(0).load());
            Ior.Iiop first = Ior.Iiop.decode(ior(forward).profiles().get(0).data());
            assertEquals(r1, first.endpoint(), "to r1, the replica with fewer connections");
            byte[] placed = first.objectKey();
            assertTrue(placed.length > KEY.length && !Arrays.equals(placed, KEY), "the forwarded key is marked");
            assertEquals(0, callOnce(r.port(1), placed).status(), "the marked key is served at r1");

            for (int i = 0; i < 2; i++) {   // back at r0, the more loaded: served, and counted there
                Socket s = new Socket("127.0.0.1", r.port(0));
                held.add(s);
                assertEquals(0, call(s, placed).status(), "a marked key is served at r0 too: never forwarded back");
            }
            assertEquals(3, callOnce(r.port(0), KEY).status(), () -> "while an unmarked new connection to r0 is "
                    + "still forwarded (the mark made the difference): " + r.goas.get(0).load());
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** The IOR a LOCATION_FORWARD reply carries, through FTS's own codec (as an encapsulation). */
    private static Ior ior(RawReply reply) {
        byte[] encapsulation = new byte[4 + reply.message().length - reply.bodyStart()];
        System.arraycopy(reply.message(), reply.bodyStart(), encapsulation, 4, encapsulation.length - 4);
        return Ior.parse("IOR:" + HexFormat.of().formatHex(encapsulation));
    }

    private static RawReply callOnce(int port, byte[] key) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return call(s, key);
        }
    }

    /** A GIOP 1.2 {@code get()} to {@code key} on {@code s}, and its reply. */
    private static RawReply call(Socket s, byte[] key) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(128 + key.length);
        b.put("GIOP".getBytes(StandardCharsets.US_ASCII)).put(new byte[] {1, 2, 0, 0}).putInt(0);
        b.putInt(5).put((byte) 3).put(new byte[3]);
        b.putShort((short) 0);
        align(b, 4);
        b.putInt(key.length).put(key);
        align(b, 4);
        b.putInt(4).put("get".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        align(b, 4);
        b.putInt(0);
        b.putInt(8, b.position() - 12);
        s.setSoTimeout(30_000);
        s.getOutputStream().write(b.array(), 0, b.position());
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] header = new byte[12];
        in.readFully(header);
        byte[] msg = Arrays.copyOf(header, 12 + ByteBuffer.wrap(header, 8, 4).getInt());
        in.readFully(msg, 12, msg.length - 12);
        ByteBuffer r = ByteBuffer.wrap(msg);
        r.position(12);
        assertEquals(5, r.getInt(), "our request id");
        int status = r.getInt();
        int n = r.getInt();
        for (int i = 0; i < n; i++) {
            align(r, 4);
            r.getInt();
            int length = r.getInt();
            r.position(r.position() + length);
        }
        align(r, 8);
        return new RawReply(status, msg, Math.min(r.position(), msg.length));
    }

    private static void align(ByteBuffer b, int n) {
        while (b.position() % n != 0) {
            b.put((byte) 0);
        }
    }
}
