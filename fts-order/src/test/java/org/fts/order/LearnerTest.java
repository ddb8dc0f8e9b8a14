package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.fts.gc.GroupConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Voters and learners ({@code fts.group.voters}; docs/primary-view.md, "Voters and learners"), deterministically
 * ({@link SteppedGroup}): with voters a, b and c (N = 3), a replica d of any other id is a learner. It takes the state
 * and delivers what the group orders, but neither its presence makes a view primary nor its acknowledgement commits.
 * Each case is checked against the same ids with every replica voting, where d does count: that is the second
 * majority a replica started under a wrong id could make, which the voters close.
 */
class LearnerTest {
    private static final GroupConfig EVERY_ONE_VOTES = new GroupConfig(3, true);
    private static final GroupConfig VOTERS = EVERY_ONE_VOTES.withVoters(Set.of("a", "b", "c"));
    private SteppedGroup g;

    @AfterEach
    void stop() {
        if (g != null) {
            g.close();
        }
    }

    @Test
    void aVoterAndALearnerAreNoMajority() {
        g = new SteppedGroup(VOTERS).add("a", "b", "c", "d");
        g.view("a", "d");
        String why = g.node("a").notPrimary(1);
        assertTrue(why.contains("1 of the 3 voters"), why);
        g.close();
        g = new SteppedGroup(EVERY_ONE_VOTES).add("a", "b", "c", "d");
        g.view("a", "d");
        assertFalse(g.node("a").epochOf(1).gap(), "with every replica voting, d makes the second of 3");
    }

    @Test
    void aLearnerTakesTheStateAndDeliversButItsAcknowledgementCommitsNothing() {
        g = new SteppedGroup(VOTERS).add("a", "b", "c", "d");
        g.view("a", "b");
        long joined = g.view("a", "b", "d");
        assertTrue(g.node("d").epochOf(joined).gap(), "a learner that joins fetches the state");
        g.send("a", 2);
        for (String n : List.of("a", "b", "d")) {
            assertEquals(List.of("a:0", "a:1"), g.node(n).texts(), n);
        }
        // b's acknowledgements are lost: a (the sequencer) and d hold the next ones, one voter of the three
        g.drop = (from, to) -> from.name().equals("b");
        g.dropOnly = Set.of(Wire.Ack.class);
        g.sendNoRun("a", 1);
        g.run();
        assertEquals(List.of("a:0", "a:1"), g.node("a").texts(), "uniform: not delivered without a majority of voters");
        assertEquals(List.of("a:0", "a:1"), g.node("d").texts());
        g.heal();
        g.send("a", 1);
        for (String n : List.of("a", "b", "d")) {
            assertEquals(List.of("a:0", "a:1", "a:2", "a:3"), g.node(n).texts(), n + ": once b acknowledges");
        }
    }

    @Test
    void withEveryReplicaVotingTheSameAcknowledgementCommits() {
        g = new SteppedGroup(EVERY_ONE_VOTES).add("a", "b", "d");
        g.view("a", "b");
        g.view("a", "b", "d");
        g.send("a", 2);
        g.drop = (from, to) -> from.name().equals("b");
        g.dropOnly = Set.of(Wire.Ack.class);
        g.sendNoRun("a", 1);
        g.run();
        assertEquals(List.of("a:0", "a:1", "a:2"), g.node("a").texts(), "a and d are 2 of 3");
    }

    @Test
    void aLearnerWithTheWholeHistoryAndOneVoterDoNotContinueIt() {
        g = new SteppedGroup(VOTERS).add("a", "b", "c", "d");
        g.view("a", "b");
        g.view("a", "b", "c", "d");
        g.send("c", 3);
        g.partition(Set.of("c", "d"));
        long cut = g.view("c", "d");   // the learner holds everything c holds: still one voter of three
        assertTrue(g.node("c").notPrimaryOf(cut).contains("1 of the 3 voters"), g.node("c").notPrimaryOf(cut));
        long majority = g.view("a", "b");
        assertFalse(g.node("a").epochOf(majority).gap(), "a and b continue the history");
        g.send("a", 1);
        assertEquals(List.of("c:0", "c:1", "c:2", "a:0"), g.node("b").texts());
    }

    /**
     * Rule 2 (the view's history holders are a majority) counts voters too: a voter restarted without its history, a
     * voter and a learner that hold it are two voters in the view, but one holder of three.
     */
    @Test
    void aLearnerHoldingTheHistoryIsNoHolderOfTheMajority() {
        for (GroupConfig config : List.of(VOTERS, EVERY_ONE_VOTES)) {
            g = new SteppedGroup(config).add("a#1", "b#1", "c#1", "d#1");
            g.view("a#1", "b#1");
            long joined = g.view("a#1", "b#1", "c#1", "d#1");
            for (String n : List.of("c#1", "d#1")) {   // they took the state: synced members of the epoch
                g.node(n).epochOf(joined);
                g.node(n).order.synced();
            }
            g.run();
            g.send("c#1", 2);
            g.crash("a#1");
            g.crash("b#1");
            g.add("a#2");   // a restarted: it lost what it held
            long after = g.view("a#2", "c#1", "d#1");
            if (config == VOTERS) {
                String why = g.node("c#1").notPrimaryOf(after);
                assertTrue(why.contains("only 1 of the 3"), why);
            } else {
                assertFalse(g.node("c#1").epochOf(after).gap(), "with every replica voting, c and d are 2 of 3");
            }
            g.close();
            g = null;
        }
    }
}
