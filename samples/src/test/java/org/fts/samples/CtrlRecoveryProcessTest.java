package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * Issue 39's scenario (docs/durability.md, "Storage faults"), with {@code fts.durability=log}: replicas A, B, C; C is
 * down while A and B commit 3000 increments; A and B are killed with SIGKILL; one byte of the suffix only A and B hold
 * is flipped in A's log; A and C start again without B. A's log reports the damaged entry, no replica there holds a
 * copy that verifies, so the group waits (it does not serve, and {@code fts status} names the entry) rather than found
 * its history without that suffix. Once B is back, A's entry is mended from B's copy and the group serves: the counter
 * goes on from the last value answered, and the three replicas' states are the same.
 */
class CtrlRecoveryProcessTest {
    private static final int BEFORE = 100;
    private static final int SUFFIX = 3000;

    private ReplicaCluster cluster;
    private ORB orb;
    private ORB plain;

    @AfterEach
    void stop() {
        for (ORB o : new ORB[] {orb, plain}) {
            if (o != null) {
                o.shutdown(false);
            }
        }
        if (cluster != null) {
            cluster.close();   // SIGKILL to every replica still running, then reaped
        }
    }

    @Test
    void aDamagedEntryOnlyTwoReplicasHeldIsMendedNeverCut() throws Exception {
        Path data = Files.createTempDirectory(Path.of("target"), "ctrl-");
        cluster = DurableClusters.create("ctrl", data);
        orb = ORB.init(new String[0], Clients.ftDefaults());
        Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
        for (int i = 0; i < BEFORE; i++) {
            counter.increment();
        }
        cluster.kill(2);   // C
        int answered = 0;
        for (int i = 0; i < SUFFIX; i++) {
            answered = counter.increment();
        }
        assertEquals(BEFORE + SUFFIX, answered);
        cluster.kill(0);   // A
        cluster.kill(1);   // B

        Path segment = newestSegment(data.resolve(cluster.group()).resolve("r0").resolve("log"));
        // inside the suffix C never received (the file is zero-filled ahead of its records: of those)
        flipByte(segment, org.fts.log.SegmentFiles.recordsEnd(segment) * 3 / 4);

        cluster.relaunch(0, List.of());
        cluster.relaunch(2, List.of());
        String waiting = awaitStatus("'s log is damaged and no replica here holds a copy that verifies");
        assertTrue(waiting.matches("(?s).*entry \\d+ of r0\\S*'s log is damaged.*"), waiting);
        // neither A nor C answers meanwhile: a call fails rather than runs on a history without the suffix
        plain = ORB.init(new String[0], shortWaits());
        for (int i : new int[] {0, 2}) {
            Counter direct = CounterHelper.narrow(plain.string_to_object(
                    Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(), "counter")));
            assertThrows(org.omg.CORBA.SystemException.class, direct::value, "r" + i + " served without B");
        }

        cluster.restart(1, List.of());   // B, with a copy of the entry that verifies
        cluster.awaitReady(0);
        cluster.awaitReady(2);
        assertEquals(answered, counter.value(), "an answered increment was lost, or one ran twice");
        assertEquals(answered + 1, counter.increment());
        AtomicReference<List<String>> digests = new AtomicReference<>();
        Waits.await(() -> {
            digests.set(List.of(digest(0), digest(1), digest(2)));
            return digests.get().stream().distinct().count() == 1;
        }, Duration.ofSeconds(60), () -> "the replicas' states differ: " + digests.get());
    }

    private String digest(int i) {
        try {
            return cluster.digest(i);
        } catch (IOException e) {
            return "no digest from r" + i + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static Path newestSegment(Path log) throws IOException {
        try (Stream<Path> files = Files.list(log)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .max(Comparator.comparing(p -> p.getFileName().toString()))
                    .orElseThrow(() -> new AssertionError("no segment in " + log));
        }
    }

    private static void flipByte(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x5a);
        }
    }

    /** Waits until {@code fts status} shows {@code text}; returns its answer. */
    private String awaitStatus(String text) {
        return DurableClusters.awaitStatus(cluster, (exit, answer) -> answer.contains(text), "never showed '" + text
                + "'", 0, 1, 2);
    }

    private static Properties shortWaits() {
        Properties p = Clients.orbDefaults();
        p.setProperty("jacorb.connection.client.pending_reply_timeout", "5000");
        return p;
    }
}
