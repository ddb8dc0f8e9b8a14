package org.fts.order;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * The random steps of a {@link ProtocolSimulator} run, each drawn from its one {@link Random}: deliver
 * messages, broadcast, change the view, change connectivity, crash, restart, install a state, the ACK timer,
 * a late view, a delivery thread's turn.
 */
final class SimSteps {
    private final ProtocolSimulator sim;
    private final Random rnd;

    SimSteps(ProtocolSimulator sim) {
        this.sim = sim;
        this.rnd = sim.rnd();
    }

    /** Step 0: every replica up and connected, one view of all, as JGroups forms it at start. */
    void found() {
        view(sim.pick(sim.live()), true);
    }

    /** One random step (drawn again until one applies). */
    void random() {
        if (sim.options().durable() && rnd.nextInt(4) == 0 && syncOne()) {
            return;   // with logs: a writer's sync (drawn apart, so that runs without logs keep their schedules)
        }
        if (sim.options().reads() && rnd.nextInt(10) == 0 && !sim.live().isEmpty()) {
            sim.reads().read(reader());   // drawn apart, like the sync
            return;
        }
        while (!take(rnd.nextInt(100))) {
            // that step did not apply here: draw another
        }
    }

    /**
     * Where a read is asked: a live member; with read leases, half the time one that sequences the epoch it has open
     * (the reads a lease answers alone, the ones it could get wrong).
     */
    private SimNode reader() {
        if (sim.options().leaseNanos() > 0 && rnd.nextBoolean()) {
            List<SimNode> s = sim.live().stream().filter(n -> {
                org.fts.gc.internal.EpochId e = n.order.member.epoch();
                return e != null && e.sequencer().equals(n.id);
            }).toList();
            if (!s.isEmpty()) {
                return sim.pick(s);
            }
        }
        return sim.pick(sim.live());
    }

    /** A live member's log writer syncs what it was handed: those entries become durable, and it acknowledges them. */
    private boolean syncOne() {
        List<SimNode> c = sim.live().stream().filter(n -> n.log != null).toList();
        if (c.isEmpty()) {
            return false;
        }
        SimNode n = sim.pick(c);
        if (n.log.sync()) {
            sim.log("sync " + n + "'s log (durable up to " + n.log.durable() + ")");
        }
        return true;
    }

    private boolean take(int w) {
        if (sim.live().isEmpty()) {
            return restart();   // with logs every replica may be down at once
        }
        if (w < 45) {
            List<SimNetwork.Queue> q = sim.net().deliverable(sim.liveMask());
            if (q.isEmpty()) {
                return false;
            }
            sim.deliver(sim.pick(q), rnd.nextInt(4) == 0 ? 2 + rnd.nextInt(3) : 1);
        } else if (w < 58) {
            sim.abcast(sim.pick(sim.live()));
        } else if (w < 65) {
            view(sim.pick(sim.live()), false);
        } else if (w < 69) {
            String shape = sim.net().reshape(rnd);
            sim.log("net " + shape);
        } else if (w < 70) {
            return crash();
        } else if (w < 73) {
            return restart();
        } else if (w < 79) {
            List<SimNode> c = new ArrayList<>();
            for (SimNode n : sim.live()) {
                if (n.standing == SimNode.Standing.UNSYNCED) {
                    c.add(n);
                }
            }
            return !c.isEmpty() && sim.sync(sim.pick(c));
        } else if (w < 83) {
            SimNode n = sim.pick(sim.live());
            sim.log("timer " + n);
            n.order.ackIfMoved();
            n.order.retryRecovery(0, 0);   // a coordinator asks again for the reports it misses
            sim.reads().tick(n);
        } else if (w < 86) {
            List<SimNode> c = sim.live().stream().filter(n -> !n.late.isEmpty()).toList();
            if (c.isEmpty()) {
                return false;
            }
            SimNode n = sim.pick(c);
            View v = n.late.remove(0);
            boolean installed = sim.see(n, v.id(), v.members());
            sim.log("late view " + v.id() + " reaches " + n + (installed ? ": installed" : ": discarded (has "
                    + n.viewId + ")"));
        } else {
            SimNode n = sim.pick(sim.live());
            sim.log("pump " + n);
            n.pump.drain();
        }
        return true;
    }

    /**
     * A view change coordinated by {@code x}, as JGroups would make one: x first, then the members it can reach
     * both ways (less, sometimes, one it wrongly suspects; plus, sometimes, a stale member of its view it still
     * believes in). Its id is x's logical time + 1, or, for a merge, the highest view id among the merged + 1.
     * It reaches the members x can reach; one may miss it, some get it late ({@code clean}: none).
     */
    void view(SimNode x, boolean clean) {
        List<MemberId> members = new ArrayList<>();
        members.add(x.id);
        for (SimNode y : sim.live()) {
            if (y != x && sim.net().up(x.replica, y.replica) && sim.net().up(y.replica, x.replica)) {
                members.add(y.id);
            }
        }
        if (!clean && members.size() > 1 && rnd.nextInt(8) == 0) {
            members.remove(1 + rnd.nextInt(members.size() - 1));   // a false suspicion
        }
        sim.shuffleTail(members);
        if (!clean && x.view != null && rnd.nextInt(4) == 0) {
            List<MemberId> stale = x.view.members().stream().filter(m -> !members.contains(m)).toList();
            if (!stale.isEmpty()) {
                members.add(1 + rnd.nextInt(members.size()), sim.pick(stale));   // not yet suspected
            }
        }
        boolean merge = rnd.nextInt(3) == 0;
        long id;
        if (merge) {
            id = x.viewId;
            for (MemberId m : members) {
                SimNode y = sim.byId(m);
                if (y.alive && sim.net().up(x.replica, y.replica) && sim.net().up(y.replica, x.replica)) {
                    id = Math.max(id, y.viewId);
                }
            }
            id++;
        } else {
            id = Math.max(x.viewId, x.ltime) + 1;
        }
        List<SimNode> bystanders = new ArrayList<>();
        if (x.view != null) {
            for (MemberId m : x.view.members()) {
                SimNode y = sim.byId(m);
                if (!members.contains(m) && y.alive && sim.net().up(x.replica, y.replica)) {
                    bystanders.add(y);
                }
            }
        }
        List<SimNode> targets = new ArrayList<>();
        for (MemberId m : members) {
            SimNode y = sim.byId(m);
            if (y.alive) {
                targets.add(y);
            }
        }
        Collections.shuffle(targets, rnd);
        SimNode missed = null;
        if (!clean && targets.size() > 1 && rnd.nextInt(6) == 0) {
            List<SimNode> others = targets.stream().filter(t -> t != x).toList();
            missed = sim.pick(others);
        }
        StringBuilder what = new StringBuilder("view " + id + " " + members + " by " + x + (merge ? " (merge)" : ""));
        sim.log(what.toString());
        StringBuilder outcome = new StringBuilder();
        for (SimNode t : targets) {
            if (t != x && !sim.net().up(x.replica, t.replica)) {
                outcome.append(' ').append(t).append(":unreachable");
            } else if (t == missed) {
                outcome.append(' ').append(t).append(":missed");
            } else if (t != x && !clean && rnd.nextInt(8) == 0) {
                t.late.add(new View(id, members, t.id));
                outcome.append(' ').append(t).append(":late");
            } else {
                long had = t.viewId;
                boolean installed = sim.see(t, id, members);
                outcome.append(' ').append(t).append(installed ? ":installed" : ":discarded(has " + had + ")");
            }
        }
        for (SimNode b : bystanders) {
            if (rnd.nextBoolean()) {
                b.ltime = Math.max(b.ltime, id);   // it sees the view, not a member: discards it
            }
        }
        sim.log("  " + outcome.toString().trim());
    }

    /**
     * Crashes a live replica, within the fault model: a minority of replicas at a time without the state. Beyond
     * it, any replica but the last live one that holds a synced state (losing every copy of the history is the
     * operator's decision: docs/primary-view.md).
     */
    private boolean crash() {
        int n = sim.options().replicas();   // the voters: learners are outside the fault model's count
        List<SimNode> live = sim.live();
        List<SimNode> c = new ArrayList<>();
        for (SimNode y : live) {
            boolean allowed;
            if (sim.options().durable()) {
                // With a log a crash loses only what was not synced: any replica whose disk rebuilds its state may
                // crash, whatever the others do (all of them at once included). One whose disk cannot (it installed a
                // fetched state and has not checkpointed it yet; FTS checkpoints at once) loses its state, as a crash
                // does without a log: replicas without the state, crashed or not, stay a minority.
                allowed = rebuilds(sim.disk(y.replica)) || !sim.options().votes(y.replica)
                        || durableWithoutState(y) + 1 <= n - (n / 2 + 1);
            } else if (sim.options().beyondFaultModel()) {
                allowed = live.stream().anyMatch(o -> o != y && o.standing == SimNode.Standing.SYNCED);
            } else {
                allowed = live.size() > 1 && (!sim.options().votes(y.replica) || sim.damaged()
                        + (y.everSynced && !sim.history.superseded(y) ? 1 : 0) <= n - (n / 2 + 1));
            }
            if (allowed) {
                c.add(y);
            }
        }
        if (c.isEmpty()) {
            return false;
        }
        SimNode y = sim.pick(c);
        sim.log("crash " + y);
        sim.crash(y);
        return true;
    }

    /**
     * With logs: the replicas without the group's state, {@code y} left out: crashed with a disk that cannot rebuild
     * their state, or live and without it (fetching one, restarted without one, superseded).
     */
    private int durableWithoutState(SimNode y) {
        int d = 0;
        for (int i = 0; i < sim.size(); i++) {
            SimNode o = sim.node(i);
            if (o == y || !sim.options().votes(i)) {
                continue;
            }
            boolean without = o.alive ? !o.everSynced || sim.history.superseded(o) : !rebuilds(sim.disk(i));
            d += without ? 1 : 0;
        }
        return d;
    }

    /** Whether a disk holds what a restart rebuilds the application's state from. */
    static boolean rebuilds(SimLog.Disk d) {
        return d.root != null ? d.root.state() != null || d.root.initial() : d.start == 0;
    }

    /** Restarts a crashed replica as a new incarnation; it joins, or (if it finds nobody) forms a view alone. */
    private boolean restart() {
        List<Integer> dead = new ArrayList<>();
        for (int i = 0; i < sim.size(); i++) {
            if (!sim.node(i).alive) {
                dead.add(i);
            }
        }
        if (dead.isEmpty()) {
            return false;
        }
        SimNode n = sim.start(sim.pick(dead));
        boolean alone = rnd.nextInt(3) == 0;
        sim.log("restart " + n + (alone ? ", alone in view 0" : ""));
        if (alone) {
            sim.see(n, 0, List.of(n.id));   // GMS's singleton view, id 0
        }
        return true;
    }
}
