package org.fts.order;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.fts.order.Wire.Entry;

/**
 * The protocol simulator's faults of a replica's disk ({@code --durability log}): at a crash, sometimes one entry the
 * disk holds is damaged (its payload, so that its identity stays known, or its header). Within the fault model of
 * docs/durability.md ("Storage faults"): at most one replica holds damage not repaired yet, and another replica's disk
 * holds the same entry at that position, undamaged, so that a copy that verifies always exists somewhere.
 */
final class SimFaults {
    private final ProtocolSimulator sim;
    private final Random rnd;
    private final Random power;

    SimFaults(ProtocolSimulator sim) {
        this.sim = sim;
        this.rnd = sim.rnd();
        this.power = sim.powerRnd();
    }

    /**
     * At a crash of {@code replica}, taken as a power loss: one time in three, if its batch synced last is unproven (no
     * record written after it survived) and no replica holds damage or an uncertain tail (one storage fault at a time),
     * its sync mark lags and the disk damaged that batch from some entry on: recovery cannot tell that from a torn
     * write, cuts it, and reports that the log may have held entries from there on (docs/durability.md, "After a power
     * loss"). Every entry it damages is held undamaged by another replica, or no other replica's disk reached its
 * position (then only this one can have acknowledged it: never committed). Drawn from a random
     * source of its own, so that the other draws of a seed stay as they were.
     */
    void maybeDamageLastSync(int replica) {
        SimLog.Disk disk = sim.disk(replica);
        if (!sim.options().powerLoss() || power.nextInt(3) != 0 || disk.lastSyncFirst < 0) {
            return;
        }
        for (int i = 0; i < sim.size(); i++) {
            if (!sim.disk(i).damaged.isEmpty() || sim.disk(i).mayHoldFrom != Long.MAX_VALUE) {
                return;
            }
        }
        long first = disk.lastSyncFirst;
        long last = Math.min(disk.lastSyncLast, disk.entries.isEmpty() ? 0 : disk.entries.lastKey());
        if (last < first || !disk.entries.containsKey(first)) {
            return;
        }
        long q = first + power.nextInt((int) Math.min(Integer.MAX_VALUE, last - first + 1));
        for (long p = q; p <= last; p++) {
            Entry e = disk.entries.get(p);
            if (e == null || !heldElsewhere(replica, p, e) && !beyondEveryOther(replica, p)) {
                return;   // the only copy of an entry that may be committed: two faults, beyond the model
            }
        }
        disk.entries.tailMap(q, true).clear();
        disk.hints.keySet().removeIf(g -> g >= q);
        disk.lastSyncFirst = -1;
        disk.mayHoldFrom = q;
        sim.log("  power loss: r" + replica + "'s sync mark lags, and the batch it synced last (" + first + ".." + last
                + ") is damaged from " + q + ": cut as a torn tail, reported as may hold from " + q);
    }

    /** At a crash of {@code replica}: one time in three, a storage fault, if one is within the fault model. */
    void maybeDamage(int replica) {
        if (rnd.nextInt(3) != 0) {
            return;
        }
        for (int i = 0; i < sim.size(); i++) {
            if (!sim.disk(i).damaged.isEmpty() || sim.disk(i).mayHoldFrom != Long.MAX_VALUE) {
                return;   // one replica with damage at a time
            }
        }
        SimLog.Disk disk = sim.disk(replica);
        List<Long> candidates = new ArrayList<>();
        for (Map.Entry<Long, Entry> e : disk.entries.entrySet()) {
            if (heldElsewhere(replica, e.getKey(), e.getValue())) {
                candidates.add(e.getKey());
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        long p = candidates.get(rnd.nextInt(candidates.size()));
        boolean identityKnown = rnd.nextInt(4) != 0;
        disk.damaged.put(p, identityKnown);
        sim.log("  storage fault: entry " + p + " of r" + replica + "'s log damaged (" + (identityKnown ? "payload"
                : "header") + ")");
    }

    /**
     * Whether no other replica's disk reached position {@code p} (in its log, or a checkpoint or gap past it): then only
     * {@code replica} can have acknowledged it, so it was never committed.
     */
    private boolean beyondEveryOther(int replica, long p) {
        for (int i = 0; i < sim.size(); i++) {
            SimLog.Disk other = sim.disk(i);
            if (i != replica && sim.options().votes(i)   // a learner's copy makes nothing committed
                    && (other.last() >= p || other.root != null && other.root.position() >= p)) {
                return false;
            }
        }
        return true;
    }

    private boolean heldElsewhere(int replica, long p, Entry e) {
        for (int i = 0; i < sim.size(); i++) {
            if (i == replica || !sim.options().votes(i)) {
                continue;   // only a voter's copy is one a majority's recovery counts on
            }
            SimLog.Disk other = sim.disk(i);
            Entry x = other.entries.get(p);
            if (x != null && !other.damaged.containsKey(p) && x.origin().equals(e.origin()) && x.oseq() == e.oseq()) {
                return true;
            }
        }
        return false;
    }
}
