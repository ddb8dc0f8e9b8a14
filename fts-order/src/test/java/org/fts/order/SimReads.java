package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fts.gc.ReadBarrier;

/**
 * The read rule in the protocol simulator (docs/reads.md): reads at random members, through the real read barrier
 * of {@link TotalOrder}, checked against every broadcast any member's application was handed before the read began
 * (under uniform delivery, each of those could have been answered): when a read's barrier is ready at a member
 * that holds the group's state, that state must hold all of them. At the end of a run, once healed, a read at every
 * member must be confirmed, and every read asked earlier must have been answered (ready or refused). The clock the
 * barriers' timeouts run on is virtual: each timer step moves it by {@link #TICK_NANOS}.
 */
final class SimReads {
    static final long TICK_NANOS = 100_000_000L;

    private final ProtocolSimulator sim;
    /** Broadcasts handed to some member's application, each once, in the order first handed. */
    private final List<String> handed = new ArrayList<>();
    private final Set<String> handedOnce = new HashSet<>();
    /** Reads asked and not answered yet, by id, with the member they were asked at. */
    private final Map<Integer, SimNode> open = new HashMap<>();
    private long nanos;
    private int asked;
    int ready;
    int refused;

    SimReads(ProtocolSimulator sim) {
        this.sim = sim;
    }

    long clock() {
        return nanos;
    }

    /** {@code n}'s pump handed {@code payload} to its application. */
    void handed(String payload) {
        if (handedOnce.add(payload)) {
            handed.add(payload);
        }
    }

    /** Time passes with no timer step (the heal's wait for read leases to end). */
    void passTime(long nanos) {
        this.nanos += nanos;
    }

    /** A timer step at {@code n}: time passes; its unconfirmed barriers expire. */
    void tick(SimNode n) {
        nanos += TICK_NANOS;
        n.order.readTick(nanos);
    }

    /** A read at {@code n}; returns its id. */
    int read(SimNode n) {
        int id = asked++;
        int before = handed.size();
        open.put(id, n);
        sim.log("read " + id + " at " + n + " (" + before + " broadcasts handed anywhere before it)");
        n.order.readBarrier(new ReadBarrier() {
            @Override
            public void ready() {
                open.remove(id);
                SimReads.this.ready++;
                check(n, id, before);
            }

            @Override
            public void refused(String why) {
                open.remove(id);
                SimReads.this.refused++;
                sim.log("  read " + id + " at " + n + " refused (" + why + "): the application orders it");
            }
        });
        return id;
    }

    private void check(SimNode n, int id, int before) {
        if (n.standing != SimNode.Standing.SYNCED) {
            sim.log("  read " + id + " ready at " + n + ", which does not hold the state: the application orders it");
            return;
        }
        Set<String> state = new HashSet<>(n.app);
        n.toHand.forEach(state::remove);   // delivered by the protocol, not yet handed to the application
        for (int i = 0; i < before; i++) {
            String w = handed.get(i);
            Long at = sim.history.position(w);
            if (at != null && at <= n.base) {
                continue;   // dropped by a founding done again, beyond the fault model
            }
            if (!state.contains(w)) {
                sim.violate("linearizable reads", "read " + id + " is ready at " + n + " without " + w + " (position "
                        + at + "), which a member's application was handed before the read began; " + n
                        + " holds " + n.describeApp());
                return;
            }
        }
        sim.log("  read " + id + " ready at " + n + ": its state holds the " + before + " broadcasts handed before");
    }

    /**
     * After the heal: every read asked earlier was answered once the barriers' timeouts passed, and a read at every
     * member is confirmed.
     */
    void checkAtEnd() {
        nanos += 10 * ReadRequester.TIMEOUT_NANOS;
        for (SimNode n : sim.live()) {
            n.order.readTick(nanos);
            n.pump.drain();
        }
        open.values().removeIf(n -> !n.alive || sim.byId(n.id) != sim.node(n.replica));
        if (!open.isEmpty()) {
            sim.violate("read liveness", "reads " + open.keySet() + " were neither ready nor refused after the heal");
            return;
        }
        int refusedBefore = refused;
        List<Integer> fresh = new ArrayList<>();
        for (SimNode n : sim.live()) {
            fresh.add(read(n));
        }
        sim.quiesce();
        sim.live().forEach(n -> n.pump.drain());
        if (!open.isEmpty() || refused != refusedBefore) {
            sim.violate("read liveness", "reads " + fresh + " in the healed group: " + open.keySet() + " unanswered");
        }
    }
}
