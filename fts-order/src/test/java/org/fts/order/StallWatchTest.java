package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.fts.gc.MemberId;
import org.junit.jupiter.api.Test;

/** The sequencer's watch over stalled members, in virtual time (ticks of 100 ms, a window of 2 s). */
class StallWatchTest {
    private static final long MS = 1_000_000;
    private static final long WINDOW = 2_000 * MS;
    private final MemberId b = new MemberId("b");
    private final StallWatch watch = new StallWatch();
    private final List<MemberId> probed = new ArrayList<>();
    private final List<MemberId> excluded = new ArrayList<>();

    private void tick(long ms, List<MemberId> stalled) {
        watch.tick(ms * MS, stalled, WINDOW, probed::add, excluded::add);
    }

    @Test
    void aStalledMemberThatAnswersNoProbeForAWholeWindowIsExcludedOnce() {
        for (long t = 0; t < 2_000; t += 100) {
            tick(t, List.of(b));
        }
        assertEquals(List.of(), excluded, "not before the window ends");
        assertEquals(20, probed.size(), "probed on every tick");
        tick(2_000, List.of(b));
        assertEquals(List.of(b), excluded);
        tick(2_100, List.of(b));
        assertEquals(List.of(b), excluded, "once, then watched afresh");
    }

    @Test
    void aStalledMemberThatAnswersIsMerelySlowAndStays() {
        for (long t = 0; t < 10_000; t += 100) {
            tick(t, List.of(b));
            if (t % 1_500 == 0) {
                watch.answered(b, t * MS + 1);
            }
        }
        assertEquals(List.of(), excluded);
    }

    @Test
    void aMemberThatStopsStallingIsForgotten() {
        for (long t = 0; t < 1_900; t += 100) {
            tick(t, List.of(b));
        }
        tick(1_900, List.of());
        for (long t = 2_000; t < 3_900; t += 100) {
            tick(t, List.of(b));
        }
        assertEquals(List.of(), excluded, "its window starts again when it stalls again");
        tick(4_000, List.of(b));
        assertEquals(List.of(b), excluded);
    }
}
