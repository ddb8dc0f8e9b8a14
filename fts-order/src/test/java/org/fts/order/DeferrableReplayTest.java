package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.fts.gc.GroupConfig;
import org.junit.jupiter.api.Test;

/**
 * Which deliveries a member lets wait ({@code fts.delivery.replay_delay}, {@link Following#deliverCommitted}): another
 * member's broadcast while none of its own is on the way and it cast none for {@link Following#QUIET_PER_DELAY}
 * replay delays; never its own, never another's while one of its own is on the way (the reply it waits for would
 * queue behind the wait), and never at a member that cast recently (its clients are busy).
 */
class DeferrableReplayTest {
    @Test
    void anotherMembersBroadcastMayWaitUnlessOneOfTheMembersOwnIsOnTheWay() {
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c")) {
            g.view("a", "b", "c");
            long a0 = g.node("a").pump.deferrableOffered();
            long b0 = g.node("b").pump.deferrableOffered();
            long c0 = g.node("c").pump.deferrableOffered();

            g.send("a", 1);
            assertEquals(a0, g.node("a").pump.deferrableOffered(), "a's own broadcast never waits at a");
            assertEquals(b0 + 1, g.node("b").pump.deferrableOffered(), "a's broadcast may wait at b");
            assertEquals(c0 + 1, g.node("c").pump.deferrableOffered(), "and at c");

            g.sendNoRun("a", 1);   // ordered first: a is the sequencer
            g.sendNoRun("b", 1);   // on its way to a while b delivers a:1
            g.run();
            assertEquals(List.of("a:0", "a:1", "b:0"), g.node("b").texts().subList(g.node("b").texts().size() - 3,
                    g.node("b").texts().size()));
            assertEquals(b0 + 1, g.node("b").pump.deferrableOffered(),
                    "at b, neither a:1 (b:0 was on its way) nor b:0 (its own)");
            assertEquals(c0 + 3, g.node("c").pump.deferrableOffered(), "at c, both: c sent nothing");
            assertEquals(a0 + 1, g.node("a").pump.deferrableOffered(), "at a, b:0: a's own a:1 came before it");
        }
    }

    @Test
    void aMemberThatCastRecentlyLetsNothingWait() {
        long hour = java.time.Duration.ofHours(1).toNanos();   // the quiet window: ten hours
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true, GroupConfig.backlogBound(0), 0, hour))
                .add("a", "b", "c")) {
            g.view("a", "b", "c");
            g.send("b", 1);   // b's clients are busy: b:0 is delivered, nothing of b's is on the way any more
            long b0 = g.node("b").pump.deferrableOffered();
            long c0 = g.node("c").pump.deferrableOffered();
            g.send("a", 1);
            assertEquals(b0, g.node("b").pump.deferrableOffered(), "b cast within the window: a:0 does not wait at b");
            assertEquals(c0 + 1, g.node("c").pump.deferrableOffered(), "c never cast: a:0 may wait at c");
        }
    }
}
