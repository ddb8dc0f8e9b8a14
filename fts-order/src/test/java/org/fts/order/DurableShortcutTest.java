package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.fts.gc.GroupConfig;
import org.junit.jupiter.api.Test;

/**
 * The durable shortcut (docs/durability.md, "The protocol with a log"): in a group of three with logs, a follower
 * delivers an entry once its own disk and the sequencer's hold it, without waiting for the sequencer to count a
 * follower's ACK; never on its own disk alone. Deterministic: every sync and message is a step of the test.
 */
class DurableShortcutTest {
    @Test
    void aFollowerDeliversWhatItsDiskAndTheSequencersHoldNeverItsDiskAlone() {
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).withLogs().add("a", "b", "c")) {
            g.view("a", "b", "c");   // a coordinates: a sequences
            g.runSyncing();
            g.node("c").epoch(1);
            long base = g.deliveredByProtocol("a");
            assertEquals(base, g.deliveredByProtocol("c"));

            // Entry 1: c's disk holds it before the sequencer's does.
            g.send("b", 1);   // FWD, ORDs: held everywhere, synced nowhere
            assertEquals(base, g.deliveredByProtocol("c"), "nothing synced: nothing delivered");
            g.sync("c");
            assertEquals(base, g.deliveredByProtocol("c"), "c's disk alone is not a majority's");
            g.run();   // c's ACK reaches a, whose disk does not hold the entry yet
            assertEquals(base, g.deliveredByProtocol("a"));
            g.sync("a");   // a and c: committed, and a says so
            assertEquals(base + 1, g.deliveredByProtocol("a"));
            g.run();
            assertEquals(base + 1, g.deliveredByProtocol("c"));
            g.runSyncing();

            // Entry 2: the sequencer's disk holds it first, and says so; c delivers as its own sync ends.
            g.send("b", 1);
            g.sync("a");
            g.run();   // a's COMMIT: its disk holds entry 2, the commit point has not moved
            assertEquals(base + 1, g.deliveredByProtocol("a"), "a's disk alone is not a majority's");
            assertEquals(base + 1, g.deliveredByProtocol("c"));
            g.sync("c");
            assertEquals(base + 2, g.deliveredByProtocol("c"),
                    "c delivers once its disk holds what a's does: no ACK, no COMMIT in between");
            assertEquals(base + 1, g.deliveredByProtocol("a"), "c's ACK has not reached a yet");
            g.run();
            assertEquals(base + 2, g.deliveredByProtocol("a"));
            assertEquals(base + 1, g.deliveredByProtocol("b"),
                    "b's disk does not hold entry 2, and the commit point c and b can work out is not sent again");
            g.sync("b");
            assertEquals(base + 2, g.deliveredByProtocol("b"));
            g.runSyncing();
            assertEquals(java.util.List.of("b:0", "b:1"), g.node("c").texts());
        }
    }
}
