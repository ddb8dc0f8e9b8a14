package org.fts.goa.frontend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.fts.goa.behaviour.RawGiop;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the front end writes replies (docs/frontend.md, "Replies"), on a real listener over loopback, with replies
 * produced by eight threads at once and a third of them by the event loop itself, one in ten of them 1 MiB: on the
 * JDK's selector the producing thread writes
 * each reply itself, the event loop finishes what the socket did not take, and every reply arrives whole, once, never
 * interleaved with another; on epoll the event loop writes them all. The client reads nothing until the socket has
 * turned a reply away, so both paths are taken.
 */
class ReplyWriterTest {
    private static final int CALLS = 300;
    private static final String KEY = "fts-test/FTS-goa/hello";

    private final ExecutorService producers = Executors.newFixedThreadPool(8);
    private final Set<GiopConnection> connections = ConcurrentHashMap.newKeySet();
    private FrontEnd front;

    @AfterEach
    void stop() {
        producers.shutdownNow();
        if (front != null) {
            front.close();
        }
    }

    private static byte[] body(int requestId) {
        byte[] b = new byte[requestId % 10 == 0 ? 1 << 20 : 40 + requestId % 50];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (requestId * 31 + i);
        }
        return b;
    }

    private Socket connect(String transport) throws IOException {
        if (front == null) {
            start(transport);
        }
        String[] hp = front.endpoint().split(":");
        Socket s = new Socket();
        s.connect(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])), 5000);
        s.setSoTimeout(30_000);
        return s;
    }

    private void start(String transport) {
        Properties p = new Properties();
        p.setProperty(FrontEnd.TRANSPORT.name(), transport);
        front = FrontEnd.start("127.0.0.1", 0, p, new GroupRequests() {
            @Override
            public void request(Exchange ex) {
                connections.add((GiopConnection) ex.connection());
                int id = ex.request().requestId();
                if (id % 3 == 1) {   // answered on the event loop, as the reply cache and refusals are
                    ex.reply(Giop.NO_EXCEPTION, List.of(), body(id));
                } else {
                    producers.execute(() -> ex.reply(Giop.NO_EXCEPTION, List.of(), body(id)));
                }
            }

            @Override
            public boolean knows(byte[] objectKey) {
                return true;
            }
        }, null);
        front.open();
    }

    /** Sends every request from a thread of its own (the listener stops reading while replies wait). */
    private static Future<?> sendAll(Socket s) {
        ExecutorService client = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "reply-writer-test-client");
            t.setDaemon(true);
            return t;
        });
        Future<?> sent = client.submit(() -> {
            OutputStream out = s.getOutputStream();
            for (int id = 1; id <= CALLS; id++) {
                out.write(RawGiop.setRequest(KEY, id, 8));
            }
            out.flush();
            return null;
        });
        client.shutdown();   // its thread ends once the requests are sent (or the socket is closed)
        return sent;
    }

    /** Reads {@code CALLS} replies: each whole, once, with its own body. */
    private static void readAll(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        boolean[] seen = new boolean[CALLS + 1];
        for (int n = 0; n < CALLS; n++) {
            byte[] header = new byte[12];
            in.readFully(header);
            assertEquals("GIOP", new String(header, 0, 4, java.nio.charset.StandardCharsets.US_ASCII), "reply " + n);
            assertEquals(Giop.REPLY, header[7], "reply " + n + " is a Reply");
            byte[] m = new byte[ByteBuffer.wrap(header).getInt(8)];
            in.readFully(m);
            int id = ByteBuffer.wrap(m).getInt(0);
            assertTrue(id >= 1 && id <= CALLS && !seen[id], "request " + id + " answered once");
            seen[id] = true;
            byte[] want = body(id);
            assertArrayEquals(want, Arrays.copyOfRange(m, m.length - want.length, m.length), "request " + id + "'s body");
        }
    }

    @Test
    void onTheJdkSelectorTheProducingThreadWritesAndTheLoopFinishesWhatTheSocketTurnedAway() throws Exception {
        for (int round = 1; round <= 4; round++) {   // a connection each: the races differ from round to round
            connections.clear();
            try (Socket s = connect("nio")) {
                Future<?> sent = sendAll(s);
                Waits.await(() -> connections.stream().anyMatch(c -> c.writer().partialWrites() > 0),
                        Duration.ofSeconds(30), () -> "a reply the socket took only part of");
                readAll(s);
                sent.get();
                GiopConnection c = connections.iterator().next();
                assertEquals(1, connections.size(), "round " + round);
                assertTrue(c.writer().directWrites() > 0, "replies written by the threads that made them");
            }
        }
    }

    @Test
    void onEpollTheEventLoopWritesEveryReply() throws Exception {
        try (Socket s = connect("epoll")) {
            Future<?> sent = sendAll(s);
            readAll(s);
            sent.get();
            GiopConnection c = connections.iterator().next();
            assertEquals(0, c.writer().directWrites() + c.writer().partialWrites());
        }
    }

    @Test
    void aMessageErrorIsWrittenWholeBeforeTheConnectionCloses() throws Exception {
        try (Socket s = connect("nio")) {
            byte[] reply = Giop.bare(2, Giop.REPLY);   // a Reply sent to a server
            s.getOutputStream().write(reply);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] header = new byte[12];
            in.readFully(header);
            assertEquals(Giop.MESSAGE_ERROR, header[7]);
            assertEquals(-1, in.read(), "closed after the MessageError");
        }
    }
}
