package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.junit.jupiter.api.Test;

/** The member's watch over its sequencer, step by step at given times (no clock, no network). */
class SequencerWatchTest {
    private static final long P = 2_000;   // patience
    private static final MemberId S = new MemberId("s");
    private static final MemberId A = new MemberId("a");
    private static final MemberId B = new MemberId("b");
    private static final MemberId C = new MemberId("c");

    private final List<String> sent = new ArrayList<>();
    private final SequencerWatch.Out out = new SequencerWatch.Out() {
        @Override
        public void probe(MemberId target) {
            sent.add("probe " + target);
        }

        @Override
        public void probeFor(MemberId helper, MemberId target) {
            sent.add("probeFor " + helper + " " + target);
        }

        @Override
        public void vouch(MemberId asker, MemberId target) {
            sent.add("vouch " + asker + " " + target);
        }

        @Override
        public void unreachable(MemberId successor, MemberId target) {
            sent.add("unreachable " + successor + " " + target);
        }

        @Override
        public void suspect(MemberId target) {
            sent.add("suspect " + target);
        }

        @Override
        public void leave(MemberId sequencer) {
            sent.add("leave " + sequencer);
        }
    };

    private SequencerWatch watching(MemberId self, long now) {
        SequencerWatch w = new SequencerWatch(self);
        w.view(new View(1, List.of(S, A, B, C), self), now);
        return w;
    }

    @Test
    void aSequencerHeardFromIsLeftAlone() {
        SequencerWatch w = watching(A, 0);
        w.heard(S, 1_500);
        w.tick(3_000, P, out);
        w.heard(B, 3_400);   // others do not count
        w.tick(3_400, P, out);
        assertEquals(List.of(), sent);
    }

    @Test
    void silenceStartsADirectAndIndirectCheckThatAnAnswerEnds() {
        SequencerWatch w = watching(A, 0);
        w.tick(2_000, P, out);
        assertEquals(List.of("probe s", "probeFor b s", "probeFor c s"), sent);
        sent.clear();
        w.tick(3_000, P, out);
        assertEquals(List.of("probe s"), sent, "probed again while the check runs");
        sent.clear();
        w.heard(S, 3_500);   // its ProbeReply
        w.tick(4_100, P, out);
        w.tick(5_000, P, out);
        assertEquals(List.of(), sent, "alive: nothing more");
        assertEquals(0, w.suspicions());
    }

    @Test
    void aVouchFromAnotherMemberKeepsASequencerThisMemberCannotHear() {
        SequencerWatch w = watching(A, 0);
        w.tick(2_000, P, out);
        w.vouched(S, 2_600);   // b heard it: a bridge between a and s, not a dead sequencer
        sent.clear();
        w.tick(4_100, P, out);
        assertEquals(List.of(), sent);
        assertEquals(0, w.suspicions());
        w.vouched(C, 5_000);   // a vouch for someone else is not one for the sequencer
        w.tick(6_000, P, out);
        w.tick(8_100, P, out);
        assertEquals("suspect s", sent.get(sent.size() - 1));
    }

    @Test
    void noAnswerFromAnyoneSuspectsItAndTellsTheMemberNextInLine() {
        SequencerWatch w = watching(B, 0);   // b is not next in line: a is
        w.tick(2_000, P, out);
        sent.clear();
        w.tick(4_000, P, out);
        assertEquals(List.of("unreachable a s", "suspect s"), sent);
        assertEquals(1, w.suspicions());
        sent.clear();
        w.tick(5_000, P, out);
        assertEquals(List.of(), sent, "watched afresh from the suspicion on");

        SequencerWatch next = watching(A, 0);
        next.tick(2_000, P, out);
        sent.clear();
        next.tick(4_000, P, out);
        assertEquals(List.of("suspect s"), sent, "the member next in line takes the place itself");
    }

    @Test
    void theMemberNextInLineChecksAtOnceWhenTold() {
        SequencerWatch w = watching(A, 0);
        w.heard(S, 900);
        w.unreachable(S, 1_000, out);
        assertEquals(List.of("probe s", "probeFor b s", "probeFor c s"), sent);
        sent.clear();
        w.unreachable(B, 1_100, out);   // not its sequencer
        w.unreachable(S, 1_200, out);   // already checking
        assertEquals(List.of(), sent);
        w.tick(3_000, P, out);
        assertEquals(List.of("suspect s"), sent);
    }

    @Test
    void aHelperProbesForItsAskersAndVouchesWhenAnswered() {
        SequencerWatch w = watching(C, 0);
        w.probeFor(A, S, out);
        w.probeFor(B, S, out);
        assertEquals(List.of("probe s", "probe s"), sent);
        sent.clear();
        w.answered(S, true, 5, out);
        assertEquals(2, sent.size());
        assertEquals(List.of("vouch a s", "vouch b s"), sent.stream().sorted().toList());
        sent.clear();
        w.answered(S, true, 5, out);
        assertEquals(List.of(), sent, "vouched once per request");
    }

    @Test
    void aMemberTheSequencerExcludedWithoutItsKnowingLeavesItsStaleViewOnce() {
        SequencerWatch w = watching(A, 0);
        w.answered(B, false, 2, out);   // another member's view is not the sequencer's
        assertEquals(List.of(), sent);
        w.answered(S, false, 2, out);   // the sequencer: "you are not in my view 2"
        w.answered(S, false, 2, out);
        assertEquals(List.of("leave s"), sent, "once per view");
        sent.clear();
        w.view(new View(3, List.of(S, A), A), 0);
        w.answered(S, true, 3, out);
        assertEquals(List.of(), sent, "a member of its view stays");
        w.answered(S, false, 4, out);
        assertEquals(List.of("leave s"), sent, "again in a later view");
    }

    @Test
    void anAnswerFromAViewNoNewerThanThisMembersIsStaleAndIgnored() {
        SequencerWatch w = new SequencerWatch(A);
        w.view(new View(4, List.of(S, A, B), A), 0);   // a merge this member installed before the sequencer did
        w.answered(S, false, 3, out);   // checked against the sequencer's view 3, which excluded this member
        w.answered(S, false, -1, out);  // the sequencer had no view yet
        assertEquals(List.of(), sent, "a stale answer does not split the new view");
        w.answered(S, false, 5, out);
        assertEquals(List.of("leave s"), sent, "a newer view without this member does");
    }

    @Test
    void theSequencerAndALoneMemberWatchNothing() {
        SequencerWatch seq = new SequencerWatch(S);
        seq.view(new View(1, List.of(S, A, B), S), 0);
        seq.tick(10_000, P, out);
        SequencerWatch alone = new SequencerWatch(A);
        alone.view(new View(1, List.of(A), A), 0);
        alone.tick(10_000, P, out);
        assertEquals(List.of(), sent);
    }
}
