package org.fts.goa.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.fts.gc.Epoch;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.junit.jupiter.api.Test;

/**
 * Whether a replica serves, and the interruption count a request compares around its cast: every loss of
 * service moves it, serving does not, so a request that waited in the doorway across a loss fails itself.
 */
class StandingTest {
    private static final MemberId A = new MemberId("r0#a");
    private static final MemberId B = new MemberId("r1#b");
    private static final MemberId C = new MemberId("r2#c");

    private static View view(long id, MemberId... members) {
        return new View(id, List.of(members), A, List.of());
    }

    @Test
    void aReplicaDoesNotServeBeforeItsObjectsAreActivatedThoughItsStateIsCurrent() {
        Standing s = new Standing(3);
        s.onView(view(1, A, B, C));
        s.onEpoch(new Epoch(1, A, List.of(A, B, C), false, true, null));   // current: e.g. rebuilt from its log
        assertNotNull(s.notServing());
        assertEquals(false, s.started().isDone(), "activate() waits");
        s.activated();
        assertEquals("is comparing its settings with the group's", s.notServing());
        assertEquals(false, s.started().isDone(), "activate() waits for the settings' comparison");
        s.settingsSettled();
        assertNull(s.notServing());
        assertEquals(true, s.started().isDone());
    }

    @Test
    void settingsThatDifferFailTheStartAndTheReplicaNeverServesButOnceStartedItServesOn() {
        Standing s = new Standing(3);
        s.onView(view(1, A, B, C));
        s.onEpoch(new Epoch(1, A, List.of(A, B, C), false, true, null));
        s.activated();
        assertEquals(true, s.refuse(new IllegalStateException("fts.delivery is agreed here, uniform at r1")));
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> s.started().get());
        assertEquals("fts.delivery is agreed here, uniform at r1", e.getCause().getMessage());
        s.settingsSettled();
        assertEquals("refuses to serve: fts.delivery is agreed here, uniform at r1", s.notServing());

        Standing served = new Standing(3);
        served.onView(view(1, A, B, C));
        served.onEpoch(new Epoch(1, A, List.of(A, B, C), false, true, null));
        served.activated();
        served.settingsSettled();
        assertEquals(false, served.refuse(new IllegalStateException("a newcomer's settings differ")));
        assertNull(served.notServing(), "a replica that serves logs a newcomer's difference and serves on");
    }

    @Test
    void everyLossOfServiceMovesTheInterruptionCountAndServingDoesNot() {
        Standing s = new Standing(3);
        s.activated();
        s.settingsSettled();
        s.onView(view(1, A, B, C));
        s.onEpoch(new Epoch(1, A, List.of(A, B, C), false, true, null));
        assertNull(s.notServing());
        long serving = s.interruptions();
        s.onView(view(2, A, B, C));   // a view change: requests wait for its epoch, the replica still serves
        s.onEpoch(new Epoch(2, A, List.of(A, B, C), false, true, null));
        assertEquals(serving, s.interruptions(), "serving on is no interruption");

        s.onView(view(3, A));   // cut off: a minority
        assertNotNull(s.notServing());
        long cut = s.interruptions();
        assertNotEquals(serving, cut);

        s.onView(view(4, A, B));
        s.onNotPrimary("no member holds a synced state");
        assertNotEquals(cut, s.interruptions(), "a view that is not primary is another interruption");
    }
}
