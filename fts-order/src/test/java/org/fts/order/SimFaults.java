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

    SimFaults(ProtocolSimulator sim) {
        this.sim = sim;
        this.rnd = sim.rnd();
    }

    /** At a crash of {@code replica}: one time in three, a storage fault, if one is within the fault model. */
    void maybeDamage(int replica) {
        if (rnd.nextInt(3) != 0) {
            return;
        }
        for (int i = 0; i < sim.size(); i++) {
            if (!sim.disk(i).damaged.isEmpty()) {
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

    private boolean heldElsewhere(int replica, long p, Entry e) {
        for (int i = 0; i < sim.size(); i++) {
            if (i == replica) {
                continue;
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
