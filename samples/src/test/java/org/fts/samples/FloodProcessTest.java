package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import fts_samples.HelloObj;
import fts_samples.HelloObjHelper;
import org.fts.goa.behaviour.RawGiop;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * A flood of legal requests against one replica of three (real processes, 256 MiB heaps): 32 connections each
 * pipeline 16 {@code set()} requests of 1000 KiB and never read a reply, 512 MiB in all, twice the replica's
 * heap. Without a bound, JacORB read them all into its queue and the replica died of OutOfMemoryError. With the
 * intake budget ({@code fts.intake.max_bytes}, a thirty-second of the heap by default) the replica stops reading when
 * the budget is spent and TCP pushes back on the flood: every replica stays alive, an FT client is served
 * throughout, the flood's requests are all read, and the digests are equal (so every replica executed them
 * all, in the same order).
 */
class FloodProcessTest {
    private static final int CONNECTIONS = 32;
    private static final int PIPELINED = 16;
    private static final int CHARS = 1000 * 1024;

    private ReplicaCluster cluster;
    private ORB orb;
    private final List<Socket> sockets = new ArrayList<>();
    private ExecutorService flooders;

    @AfterEach
    void stop() throws Exception {
        if (flooders != null) {
            flooders.shutdownNow();
        }
        for (Socket s : sockets) {
            s.close();
        }
        if (flooders != null) {
            flooders.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aFloodOfPipelinedRequestsMeetsBackpressureAndEveryReplicaLives() throws Exception {
        String group = "flood-" + UUID.randomUUID().toString().substring(0, 6);
        // the flood goes to one replica on purpose: placement must not spread its connections
        cluster = new ReplicaCluster(group, 3, false, List.of("-Xmx256m", "-Dfts.placement=first"),
                Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.ftDefaults());
        HelloObj hello = HelloObjHelper.narrow(orb.string_to_object(cluster.reference("hello")));
        hello.set("before");
        String key = "fts/FTS-" + group + "/hello";
        int port = cluster.ports().get(0);
        flooders = Executors.newFixedThreadPool(CONNECTIONS);
        List<Future<?>> floods = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            Socket s = new Socket("127.0.0.1", port);
            sockets.add(s);
            floods.add(flooders.submit(() -> {
                OutputStream out = s.getOutputStream();
                for (int k = 1; k <= PIPELINED; k++) {
                    out.write(RawGiop.setRequest(key, k, CHARS));   // blocks while the replica holds back
                }
                out.flush();
                return null;
            }));
        }
        Path log = Path.of("target", "child-logs", group + "-r0.err");
        Waits.await(() -> contains(log, "intake budget spent"), Duration.ofSeconds(60),
                () -> "r0 held its readers back");
        long[] intake = cluster.intake(0);   // over JMX (and so in the metrics): max, used, peak, holds
        assertTrue(intake[0] > 7L << 20 && intake[0] <= 8L << 20, "the budget: a thirty-second of the 256 MiB heap "
                + "(as the JVM counts its maximum): " + intake[0]);
        assertTrue(intake[3] >= 1 && intake[2] > intake[0] / 2, "held back with the budget spent: "
                + java.util.Arrays.toString(intake));
        assertTrue(intake[2] <= intake[0] + 2L * CHARS, "never more than the budget and one message: "
                + java.util.Arrays.toString(intake));
        Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
        int first = counter.increment();
        for (int k = 1; k <= 5; k++) {
            assertEquals(first + k, counter.increment(), "an FT client is served during the flood");
        }
        for (Future<?> f : floods) {
            f.get(180, TimeUnit.SECONDS);   // every byte of the flood was read: nothing was dropped
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(cluster.isAlive(i), "r" + i + " alive");
        }
        assertEquals(first + 6, counter.increment(), "and after it");
        List<String> digests = new ArrayList<>();
        Waits.await(() -> {
            digests.clear();
            for (int i = 0; i < 3; i++) {
                try {
                    digests.add(cluster.digest(i));
                } catch (Exception e) {
                    return false;
                }
            }
            return new HashSet<>(digests).size() == 1;
        }, Duration.ofSeconds(60), () -> "equal digests: " + digests);
        assertTrue(!contains(log, "OutOfMemoryError"), "no OutOfMemoryError on r0");
    }

    private static boolean contains(Path log, String text) {
        try {
            return Files.exists(log) && Files.readString(log).contains(text);
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
