package org.fts.goa;

import org.fts.goa.intake.Cast;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** When a replica that wants the group's state asks for it: the markers it casts, against a recording host. */
class StateTransferTest {
    private final MemberId self = new MemberId("r2#new");
    private final MemberId provider = new MemberId("r0#a");
    private final View view = new View(8, List.of(provider, new MemberId("r1#b"), self), self);
    private final List<Cast.StateMarker> cast = new CopyOnWriteArrayList<>();
    private final java.util.Set<MemberId> serving = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final StateTransfer transfer = new StateTransfer(new StateTransfer.Host() {
        @Override
        public MemberId member() {
            return self;
        }

        @Override
        public void cast(Cast.StateMarker marker) {
            cast.add(marker);
        }

        @Override
        public void send(MemberId to, byte[] message) {
        }

        @Override
        public void atCut(Runnable action) {
        }

        @Override
        public String cannotProvide() {
            return "a test host";
        }

        @Override
        public boolean seenServing(MemberId member) {
            return serving.contains(member);
        }

        @Override
        public byte[] snapshot() {
            return new byte[0];
        }

        @Override
        public void install(byte[] snapshot, List<Cast> buffered) {
        }
    }, 60_000, "test");

    @AfterEach
    void stop() {
        transfer.shutdown();
    }

    /**
     * A restarted replica activates its objects (main thread) between its view and its first epoch, which comes
     * with a gap. Asked at activation, the transfer was abandoned at the epoch and asked again: two snapshots
     * for one join (ReplicaJmxInJvmTest saw the provider count 2). It asks once, when the epoch opens.
     */
    @Test
    void aReplicaReadyBeforeItsEpochOpensAsksOnceWhenItOpensEvenWithAGap() {
        transfer.onStanding(view, false, true, false, null);   // the view: the state is wanted, no epoch yet
        transfer.ready();                                     // the objects are active
        assertEquals(List.of(), cast, "no marker before the epoch opens");
        transfer.onStanding(view, true, true, true, provider); // the first epoch, with its gap
        assertEquals(1, cast.size(), "one marker: " + cast);
        assertEquals(provider, cast.get(0).provider());
        assertEquals(self, cast.get(0).requester());
    }

    /** A gap after the marker was cast starts the transfer over: the buffered casts would lack that part. */
    @Test
    void aGapAfterTheRequestStartsTheTransferOver() {
        transfer.ready();
        transfer.onStanding(view, true, true, false, null);
        assertEquals(1, cast.size());
        View next = new View(9, view.members(), self);
        transfer.onStanding(next, false, true, false, null);   // a view change: no new marker yet
        assertEquals(1, cast.size());
        transfer.onStanding(next, true, true, true, null);     // its epoch, with a gap: ask again
        assertEquals(2, cast.size(), "asked again after the gap: " + cast);
        assertNotEquals(cast.get(0).nonce(), cast.get(1).nonce());
    }

    /**
     * Without the group layer's hint, a member the whiteboard shows serving is asked before the view's first, which
     * may itself be behind (raft ctrl seed 14: such a member neither answered nor refused for the whole attempt);
     * with none known to serve, the view's first, as before.
     */
    @Test
    void aMemberSeenServingIsAskedBeforeTheViewsFirst() {
        serving.add(view.members().get(1));
        transfer.ready();
        transfer.onStanding(view, true, true, false, null);
        assertEquals(1, cast.size());
        assertEquals(view.members().get(1), cast.get(0).provider(), "r1 serves; r0 may be behind");
    }

    @Test
    void withNoMemberKnownToServeTheViewsFirstIsAsked() {
        transfer.ready();
        transfer.onStanding(view, true, true, false, null);
        assertEquals(provider, cast.get(0).provider());
    }
}
