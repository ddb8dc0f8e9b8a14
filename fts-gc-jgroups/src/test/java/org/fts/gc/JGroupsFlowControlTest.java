package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.fts.testing.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flow control never deadlocks the ordering: the shipped UDP stack, with flow-control credits so small that every
 * sender keeps waiting for them, and three members broadcasting flat out (the sequencer among them), delivers
 * everything everywhere. Its threads (the bundler that sends on the caller's thread, the receivers that handle
 * the ordering traffic: {@code DirectOrdering}) must never wait for credits that only a waiting thread could
 * receive. It found one: acknowledgements handled on the unicast receiver let UNICAST3 deliver the sender's
 * queued forwards on that thread, whose multicast then waited for credits that only that thread could receive
 * (docs/group-communication.md).
 */
class JGroupsFlowControlTest {
    private static final int PER_SENDER = 15_000;
    private static final Duration BOUND = Duration.ofSeconds(120);

    @Test
    void threeMembersBroadcastingFlatOutUnderTinyCreditsDeliverEverything(@TempDir Path dir) throws Exception {
        Path stack = dir.resolve("tiny-credits.xml");
        String xml;
        try (InputStream in = JGroupsFlowControlTest.class.getResourceAsStream("/fts-jgroups-udp.xml")) {
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String tiny = xml.replace("<MFC max_credits=\"4M\"", "<MFC max_credits=\"32K\"")
                .replace("<UFC max_credits=\"4M\"", "<UFC max_credits=\"32K\"");
        assertTrue(tiny.contains("max_credits=\"32K\"") && !tiny.contains("max_credits=\"4M\""), "credits replaced");
        Files.writeString(stack, tiny);
        String group = "fc-" + UUID.randomUUID().toString().substring(0, 8);
        List<GroupChannel> members = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Properties p = new Properties();
                p.setProperty("fts.gc", "jgroups");
                p.setProperty("fts.jgroups.stack", stack.toString());
                p.setProperty("fts.jgroups.mcast_port", Integer.toString(multicastPort(group)));
                GroupChannel ch = GroupChannels.create(p, "m" + i);
                Recorder r = new Recorder();
                ch.join(group, r);
                members.add(ch);
                recorders.add(r);
            }
            for (Recorder r : recorders) {
                r.awaitView(v -> v.size() == 3, BOUND, "3 members");
            }
            for (GroupChannel ch : members) {
                Thread t = new Thread(() -> {
                    byte[] payload = new byte[100];
                    for (int k = 0; k < PER_SENDER && !Thread.currentThread().isInterrupted(); k++) {
                        ch.abcast(payload.clone());
                    }
                }, "flat-out-" + ch.self());
                t.setDaemon(true);
                senders.add(t);
                t.start();
            }
            for (Recorder r : recorders) {
                r.awaitDelivered(3 * PER_SENDER, BOUND);   // a deadlock stops everything: this bound fails it
            }
            for (Recorder r : recorders) {
                assertEquals(3 * PER_SENDER, r.deliveredCount());
            }
        } finally {
            senders.forEach(Thread::interrupt);
            closeWithin(members, Duration.ofSeconds(20));
        }
    }

    /**
     * Closes the members, for at most {@code bound}: a deadlocked group cannot even leave (JGroups waits for a view
     * that never completes), and the test, failed already, must not hang on it.
     */
    private static void closeWithin(List<GroupChannel> members, Duration bound) throws InterruptedException {
        Thread closer = new Thread(() -> {
            for (int i = members.size() - 1; i >= 0; i--) {
                members.get(i).close();
            }
        }, "closer");
        closer.setDaemon(true);
        closer.start();
        closer.join(bound.toMillis());
    }

    /** A multicast port of this group's own, so that no other test's group shares its traffic. */
    private static int multicastPort(String group) {
        return 40_000 + Math.floorMod(group.hashCode(), 20_000);
    }
}
