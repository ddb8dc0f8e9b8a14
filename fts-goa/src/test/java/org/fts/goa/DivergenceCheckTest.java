package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.fts.gc.FailStopHook;
import org.fts.goa.intake.Cast;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The divergence check's rules, one replica's check fed by hand: a majority decides a window; without one, once every
 * member reported, the first digest ordered decides; digests of members not in the view (replayed from a log, or of a
 * member that left) and of windows long past count for nothing; an unknown position (a state from before positions)
 * is not compared; and the group's calendar follows the median offset and never goes back.
 */
class DivergenceCheckTest {
    private static final ObjectKey HELLO = new ObjectKey("hello".getBytes(StandardCharsets.UTF_8));
    private final List<Throwable> stopped = new ArrayList<>();
    private final List<Cast> cast = new ArrayList<>();
    private FailStopHook.Action before;

    @BeforeEach
    void hook() {
        before = FailStopHook.replace((thread, cause) -> stopped.add(cause));
    }

    @AfterEach
    void unhook() {
        FailStopHook.replace(before);
    }

    private DivergenceCheck check(String self, Set<String> view) {
        return new DivergenceCheck(self, 2, 3, cast::add, () -> view);
    }

    private static Reply reply(String s) {
        return new Reply(Reply.Kind.NORMAL, s.getBytes(StandardCharsets.UTF_8));
    }

    /** r2 executes window 0 answering {@code answer} at position 1; returns the digest it cast. */
    private Cast.ReplyDigest execute(DivergenceCheck c, String answer) {
        c.executed(0, HELLO, "get", reply("a"));
        c.executed(1, HELLO, "get", reply(answer));
        return (Cast.ReplyDigest) cast.get(cast.size() - 1);
    }

    @Test
    void aMajorityDecidesAndTheReplicaThatDiffersStopsNamingThePosition() {
        DivergenceCheck mine = check("r2#c", Set.of("r0#a", "r1#b", "r2#c"));
        Cast.ReplyDigest own = execute(mine, "clock-2");
        int[] group = own.hashes().clone();
        group[1] ^= 1;
        mine.delivered(new Cast.ReplyDigest("r0#a", 0, group));
        mine.delivered(own);
        assertEquals(List.of(), stopped, "one against one decides nothing");
        mine.delivered(new Cast.ReplyDigest("r1#b", 0, group));
        assertEquals(1, stopped.size());
        String why = stopped.get(0).getMessage();
        assertTrue(why.startsWith("replica r2 diverged from the group at position 1: its reply to get on object "
                + "'hello'") && why.contains("2 of 3 replicas agree"), why);
    }

    @Test
    void withoutAMajorityTheFirstDigestOrderedDecidesOnceEveryMemberReported() {
        DivergenceCheck mine = check("r1#b", Set.of("r0#a", "r1#b", "r2#c"));
        Cast.ReplyDigest own = execute(mine, "clock-1");
        int[] first = own.hashes().clone();
        first[1] ^= 1;
        int[] third = own.hashes().clone();
        third[1] ^= 2;
        mine.delivered(new Cast.ReplyDigest("r0#a", 0, first));
        mine.delivered(own);
        assertEquals(List.of(), stopped);
        mine.delivered(new Cast.ReplyDigest("r2#c", 0, third));
        assertEquals(1, stopped.size(), "r1 differs from r0's, ordered first");
        assertTrue(stopped.get(0).getMessage().contains("no majority"), stopped.get(0).getMessage());
    }

    @Test
    void digestsOfMembersNotInTheViewAndOfWindowsLongPastCountForNothing() {
        DivergenceCheck mine = check("r2#new", Set.of("r0#a", "r1#b", "r2#new"));
        Cast.ReplyDigest own = execute(mine, "x");
        int[] other = own.hashes().clone();
        other[0] ^= 1;
        // r2's predecessor and a member that left: replayed from a log
        mine.delivered(new Cast.ReplyDigest("r2#old", 0, other));
        mine.delivered(new Cast.ReplyDigest("r3#gone", 0, other));
        mine.delivered(new Cast.ReplyDigest("r0#a", 0, own.hashes()));
        assertEquals(List.of(), stopped);
        // a window far newer makes window 0 past: a late digest for it changes nothing
        mine.delivered(new Cast.ReplyDigest("r0#a", 100, new int[] {1, 2}));
        mine.delivered(new Cast.ReplyDigest("r1#b", 0, other));
        assertEquals(List.of(), stopped);
    }

    /**
     * Chaos (mixed, seed 2004, the bank with an ordered call out): a replica that fell out of the order ends the
     * ordered call its servant waits for with TRANSIENT, made up here; the group's digest of that window, delivered
     * before, must not stop it: the state it is about to take replaces that execution.
     */
    @Test
    void aWindowExecutedWhileTheStateIsStaleIsComparedWithNobodysUntilTheStateIsReplaced() {
        DivergenceCheck mine = check("r0#a", Set.of("r0#a", "r1#b", "r2#c"));
        mine.executed(0, HELLO, "get", reply("a"));
        mine.stale(true);
        mine.executed(1, HELLO, "transfer", new Reply(Reply.Kind.SYSTEM_EXCEPTION, new byte[] {1}));
        assertEquals(List.of(), cast, "no digest of a window with an abandoned execution");
        DivergenceCheck peer = check("r1#b", Set.of("r0#a", "r1#b", "r2#c"));
        Cast.ReplyDigest group = execute(peer, "entry-7");
        mine.delivered(group);
        mine.delivered(new Cast.ReplyDigest("r2#c", 0, group.hashes()));
        assertEquals(List.of(), stopped, "two agree, the stale replica's window is not compared");
        mine.reset();   // the group's state installed at a cut: compared again from here
        mine.executed(2, HELLO, "get", reply("a"));
        mine.executed(3, HELLO, "get", reply("clock"));
        Cast.ReplyDigest own = (Cast.ReplyDigest) cast.get(cast.size() - 1);
        int[] other = own.hashes().clone();
        other[1] ^= 1;
        mine.delivered(new Cast.ReplyDigest("r1#b", 1, other));
        mine.delivered(new Cast.ReplyDigest("r2#c", 1, other));
        assertEquals(1, stopped.size(), "after the install a difference stops it again");
    }

    @Test
    void anUnknownPositionIsNotCompared() {
        DivergenceCheck mine = check("r0#a", Set.of("r0#a", "r1#b", "r2#c"));
        mine.executed(-1, HELLO, "get", reply("a"));
        mine.executed(-1, HELLO, "get", reply("b"));
        assertEquals(List.of(), cast, "no digest of unknown positions");
    }

    @Test
    void theCalendarFollowsTheMedianOffsetAndNeverGoesBack() {
        GroupCalendar c = new GroupCalendar();
        assertEquals(5, c.time(5), "no offset yet: the group's own time");
        c.offset("r0", 1_000);
        c.offset("r1", 1_100);
        c.offset("r2", 31_000);   // 30 s fast
        assertEquals(1_110, c.time(10), "the median, not the fast one");
        c.offset("r1", 900);   // the median falls to 1000: time stands still until it catches up
        assertEquals(1_110, c.time(20));
        assertEquals(1_200, c.time(200));
    }
}
