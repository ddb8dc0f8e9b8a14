package org.fts.order;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * The end of a {@link ProtocolSimulator} run: restart crashed replicas (at least enough for a majority), heal
 * every link, install one view of all live members until its epoch opens everywhere, let every member with a
 * gap install the state, broadcast once more from each, run to quiescence, and check that every member holds
 * the one history and every broadcast of a live member is in it.
 */
final class SimEnd {
    private static final int ROUNDS = 4;
    private final ProtocolSimulator sim;

    SimEnd(ProtocolSimulator sim) {
        this.sim = sim;
    }

    void run() {
        sim.log("== heal: no more faults ==");
        int majority = sim.options().replicas() / 2 + 1;   // of the voters
        int alive = (int) sim.live().stream().filter(n -> sim.options().votes(n.replica)).count();
        for (int i = 0; i < sim.size(); i++) {
            if (!sim.node(i).alive && (sim.options().votes(i) && alive < majority || sim.options().durable()
                    || sim.rnd().nextBoolean())) {
                sim.log("restart " + sim.start(i));
                alive += sim.options().votes(i) ? 1 : 0;
            }
        }
        sim.net().heal();
        for (SimNode n : sim.live()) {
            for (View v : n.late) {
                sim.see(n, v.id(), v.members());
            }
            n.late.clear();
        }
        long id = -1;
        boolean primary = false;
        for (int round = 0; round < ROUNDS && sim.ok() && !primary; round++) {
            sim.quiesce();
            syncAll();
            SimNode x = sim.pick(sim.live());
            id = 0;
            for (SimNode n : sim.live()) {
                id = Math.max(id, Math.max(n.viewId, n.ltime));
            }
            id++;
            List<MemberId> members = new ArrayList<>();
            members.add(x.id);
            sim.live().stream().filter(n -> n != x).forEach(n -> members.add(n.id));
            sim.shuffleTail(members);
            sim.log("final view " + id + " " + members);
            List<SimNode> targets = new ArrayList<>(sim.live());
            Collections.shuffle(targets, sim.rnd());
            for (SimNode t : targets) {
                sim.see(t, id, members);
            }
            sim.quiesce();
            syncAll();
            primary = sim.allOpened(id);
        }
        if (!sim.ok()) {
            return;
        }
        boolean beyond = sim.options().beyondFaultModel();
        if (!primary) {
            if (beyond) {
                sim.log("== end: not primary after the heal (beyond the fault model: allowed) ==");
            } else {
                sim.violate("liveness", "no progress after heal: the epoch of view " + id + " did not open everywhere: "
                        + states());
            }
            return;
        }
        syncAll();
        for (SimNode n : sim.live()) {
            if (n.standing != SimNode.Standing.SYNCED) {
                if (!beyond) {
                    sim.violate("liveness", n + " never got the state after the heal: " + states());
                }
                return;
            }
        }
        for (SimNode n : sim.live()) {
            sim.abcast(n);
        }
        sim.quiesce();
        if (sim.ok()) {
            check();
        }
        if (sim.ok() && sim.options().reads()) {
            sim.reads().checkAtEnd();
        }
    }

    /** Every member with a gap installs the state, as soon as its provider holds it. */
    private void syncAll() {
        boolean progress = true;
        while (progress && sim.ok()) {
            progress = false;
            for (SimNode n : sim.live()) {
                n.pump.drain();
                if (n.standing == SimNode.Standing.UNSYNCED && sim.sync(n)) {
                    progress = true;
                }
            }
            if (progress) {
                sim.quiesce();
            }
        }
    }

    private void check() {
        SimHistory h = sim.history;
        long base = sim.live().get(0).base;   // positions up to it were dropped by a founding done again
        if (h.minDelivered() <= base) {
            sim.violate("uniform durability", "position " + h.minDelivered() + " was delivered, but the history the "
                    + "group kept starts after " + base);
            return;
        }
        List<String> history = h.list(base);
        for (int i = 0; i < history.size(); i++) {
            if (history.get(i) == null) {
                sim.violate("uniform durability", "position " + (base + 1 + i) + " was delivered nowhere, later "
                        + "ones were");
                return;
            }
        }
        for (SimNode n : sim.live()) {
            if (n.base != base || !n.app.equals(history)) {
                int at = 0;
                while (at < Math.min(n.app.size(), history.size()) && n.app.get(at).equals(history.get(at))) {
                    at++;
                }
                sim.violate("uniform durability", n + " holds (" + n.base + "," + (n.base + n.app.size())
                        + "], the history is (" + base + "," + (base + history.size()) + "]; first difference at "
                        + (n.base + at + 1));
                return;
            }
        }
        String hole = h.originHole();
        if (hole != null) {
            sim.violate("FIFO per origin", hole);
            return;
        }
        for (SimNode n : sim.live()) {
            for (int k = 0; k < n.broadcasts; k++) {
                if (!h.contains(n.id.name() + ":" + k)) {
                    sim.violate("liveness", n.id.name() + ":" + k + " (of a live member) was never delivered after the heal");
                    return;
                }
            }
        }
        sim.log("== end: " + sim.live().size() + " members hold the same " + history.size() + " broadcasts ==");
    }

    private String states() {
        StringBuilder sb = new StringBuilder();
        for (SimNode n : sim.live()) {
            sb.append("\n    ").append(n).append(" view=").append(n.viewId).append(' ').append(n.order.describe())
                    .append(" | ").append(n.describeApp());
        }
        return sb.toString();
    }
}
