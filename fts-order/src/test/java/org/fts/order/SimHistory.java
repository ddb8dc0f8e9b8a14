package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/**
 * The protocol simulator's invariants ({@link ProtocolSimulator}): the one history every delivery anywhere
 * must fit, and the model of each member's application state, moved by the protocol's {@link MemberObserver}.
 * A broken invariant is reported to the simulator, never thrown: taps run inside the protocol, whose recovery
 * steps catch and log exceptions.
 */
final class SimHistory {
    private final ProtocolSimulator sim;
    /** Position to payload: what any member delivered there. */
    private final Map<Long, String> byPos = new HashMap<>();
    private final Map<String, Long> posOf = new HashMap<>();
    /** Position to who delivered it first, and how: the detail a violation report needs. */
    private final Map<Long, String> firstBy = new HashMap<>();
    /** Per origin incarnation, its broadcast number to position. */
    private final Map<String, TreeMap<Integer, Long>> perOrigin = new HashMap<>();
    /** View id (and ballot: view ids repeat after a whole-group restart) to the epoch opened in it. */
    private final Map<List<Long>, EpochId> epochs = new HashMap<>();
    private final Set<String> sent = new HashSet<>();
    /** Per founding done again (view and ballot), the members that opened it. */
    private final Map<List<Long>, Set<String>> refoundOpeners = new HashMap<>();
    private long max;
    private long minDelivered = Long.MAX_VALUE;
    /** The latest view whose epoch delivered something (a founding after it, at 1, forks the history). */
    private long deliveredInView = -1;
    long deliveries;

    SimHistory(ProtocolSimulator sim) {
        this.sim = sim;
    }

    void sent(String payload) {
        sent.add(payload);
    }

    /**
     * The history after {@code base} (positions up to it were dropped by a founding done again), to the highest
     * position delivered anywhere; null for a hole.
     */
    List<String> list(long base) {
        List<String> out = new ArrayList<>();
        for (long p = base + 1; p <= max; p++) {
            out.add(byPos.get(p));
        }
        return out;
    }

    /** The lowest position delivered anywhere (Long.MAX_VALUE if none). */
    long minDelivered() {
        return minDelivered;
    }

    /**
     * Whether {@code n}'s history was superseded: it holds, at a position, another broadcast than the one delivered
     * there (the fault model counts such a replica as without the group's state: it must get a gap).
     */
    boolean superseded(SimNode n) {
        for (Map.Entry<Long, byte[]> e : n.order.heldPayloads().entrySet()) {
            String d = byPos.get(e.getKey());
            if (d != null && !d.equals(new String(e.getValue(), java.nio.charset.StandardCharsets.UTF_8))) {
                return true;
            }
        }
        return false;
    }

    /** Where {@code payload} was delivered, or null if nowhere yet. */
    Long position(String payload) {
        return posOf.get(payload);
    }

    boolean contains(String payload) {
        return posOf.containsKey(payload);
    }

    /** Each origin's broadcasts in the history are numbered 0, 1, 2, ...: none skipped. */
    String originHole() {
        for (Map.Entry<String, TreeMap<Integer, Long>> e : perOrigin.entrySet()) {
            int expect = 0;
            for (int k : e.getValue().keySet()) {
                if (k != expect) {
                    return e.getKey() + ":" + expect + " is missing while " + e.getKey() + ":" + k + " is in the history";
                }
                expect++;
            }
        }
        return null;
    }

    // ================================ the taps ================================

    void delivered(SimNode n, long gseq, MemberId origin, String payload) {
        deliveries++;
        if (n.standing == SimNode.Standing.FRESH) {
            sim.violate("no holes", n + " delivered position " + gseq + " before opening any epoch");
        } else if (gseq != n.last + 1) {
            sim.violate("no holes", n + " delivered position " + gseq + " after position " + n.last);
        }
        n.last = gseq;
        n.toHand.add(payload);
        if (n.epoch != null) {
            deliveredInView = Math.max(deliveredInView, n.epoch.view());
        }
        if (!payload.startsWith(origin.name() + ":") || !sent.contains(payload)) {
            sim.violate("integrity", n + " delivered " + payload + " from " + origin + ": never broadcast so");
        }
        record(n, gseq, payload);
        if (n.standing == SimNode.Standing.SYNCED) {
            if (n.base + n.app.size() + 1 != gseq) {
                sim.violate("no holes", n + " applies position " + gseq + " after " + (n.base + n.app.size()));
            }
            n.app.add(payload);
        } else if (n.standing == SimNode.Standing.UNSYNCED) {
            if (n.gapStart + n.buffered.size() != gseq) {
                sim.violate("no holes", n + " delivered position " + gseq + " while waiting for the state before "
                        + n.gapStart + " with " + n.buffered.size() + " delivered since");
            }
            n.buffered.add(payload);
        }
    }

    private void record(SimNode n, long gseq, String payload) {
        String before = byPos.putIfAbsent(gseq, payload);
        if (before != null) {
            if (!before.equals(payload)) {
                sim.violate("agreement", n + " delivered " + payload + " at position " + gseq + " " + how(n)
                        + ", where " + before + " was delivered before, " + firstBy.get(gseq));
            }
            return;
        }
        firstBy.put(gseq, "by " + n + " " + how(n));
        Long elsewhere = posOf.putIfAbsent(payload, gseq);
        if (elsewhere != null) {
            sim.violate("exactly once", n + " delivered " + payload + " at position " + gseq + "; it is also at "
                    + elsewhere + ", delivered there " + firstBy.get(elsewhere));
            return;
        }
        max = Math.max(max, gseq);
        minDelivered = Math.min(minDelivered, gseq);
        int colon = payload.lastIndexOf(':');
        String origin = payload.substring(0, colon);
        int k = Integer.parseInt(payload.substring(colon + 1));
        TreeMap<Integer, Long> mine = perOrigin.computeIfAbsent(origin, o -> new TreeMap<>());
        Map.Entry<Integer, Long> lower = mine.lowerEntry(k);
        Map.Entry<Integer, Long> higher = mine.higherEntry(k);
        if ((lower != null && lower.getValue() > gseq) || (higher != null && higher.getValue() < gseq)) {
            sim.violate("FIFO per origin", payload + " at position " + gseq + ", but "
                    + (lower != null && lower.getValue() > gseq ? origin + ":" + lower.getKey() + " at " + lower.getValue()
                    : origin + ":" + higher.getKey() + " at " + higher.getValue()));
        }
        mine.put(k, gseq);
    }

    /** How {@code n} delivers now: in its open epoch, or catching up as it opens the next one. */
    private static String how(SimNode n) {
        return n.order.phase() instanceof Phase.Catching c ? "as it opened epoch " + c.epoch() + " at " + c.start()
                : "in epoch " + n.epoch;
    }

    void opened(SimNode n, EpochId epoch, long ballot, long start, boolean gap, boolean refound, MemberId provider) {
        n.epoch = epoch;
        EpochId other = epochs.putIfAbsent(List.of(epoch.view(), ballot), epoch);
        if (other != null && !other.equals(epoch)) {
            sim.violate("one epoch per view", n + " opened " + epoch + "; " + other + " was opened too");
        }
        if (refound) {
            // Checked once the founding is established, when a majority of the replicas opened it: only then can it
            // commit, so only then do the positions it drops count. A coordinator acting on reports that went stale
            // (their senders promised a later recovery and delivered in its epoch since) opens a founding no majority
            // can join: its members left that view for good, so it holds its coordinator alone and commits nothing
            // (seed 14677, docs/simulator.md "Also seen").
            Set<String> by = refoundOpeners.computeIfAbsent(List.of(epoch.view(), ballot), k -> new HashSet<>());
            if (sim.options().votes(n.replica)) {   // a learner's opening makes no majority
                by.add(n.id.replica());
            }
            if (by.size() == sim.options().replicas() / 2 + 1 && minDelivered < start) {
                sim.violate("uniform durability", n + " opened " + epoch + " founding the group again at " + start
                        + " with " + by + ", a majority, dropping position " + minDelivered + " that was delivered ("
                        + byPos.get(minDelivered) + ")");
            }
        }
        if (gap) {
            if (provider == null) {
                sim.violate("served", n + " opened " + epoch + " at " + start + " with a gap and no provider");
            }
            n.standing = SimNode.Standing.UNSYNCED;
            n.gapStart = start;
            n.provider = provider;
            n.buffered = new ArrayList<>();
            n.last = start - 1;
            n.gapsTapped++;
            n.everSynced = false;   // without the state until it installs one
            return;
        }
        if (refound) {
            n.standing = SimNode.Standing.SYNCED;
            n.everSynced = true;
            n.base = start - 1;
            n.app = new ArrayList<>();
            n.last = start - 1;
            return;
        }
        switch (n.standing) {
            case FRESH -> {
                if (sim.options().durable()) {
                    // With a log a new member is repaired from the start of the history and delivers all of it.
                    n.standing = SimNode.Standing.SYNCED;
                    n.everSynced = true;
                    n.base = 0;
                    n.last = 0;
                    return;
                }
                if (start != 1) {
                    sim.violate("no holes", n + " never held a history yet opened " + epoch + " at " + start
                            + " without a gap");
                } else if (!byPos.isEmpty() && deliveredInView < epoch.view()) {
                    sim.violate("uniform durability", n + " opened " + epoch + " founding the group anew at 1, but "
                            + "positions " + minDelivered + " to " + max + " were delivered in earlier epochs ("
                            + byPos.get(minDelivered) + " first)");
                }
                n.standing = SimNode.Standing.SYNCED;
                n.everSynced = true;
                n.base = start - 1;
                n.last = start - 1;
            }
            // Opening without a gap, a member may not yet have delivered all of the history the epoch continues:
            // under uniform delivery its tail waits for the new epoch's commit point. It must not be ahead of it.
            case SYNCED -> {
                if (n.last > start - 1) {
                    sim.violate("no holes", n + " opened " + epoch + " at " + start + " without a gap but delivered up to "
                            + n.last);
                }
            }
            case UNSYNCED -> {
                if (n.last > start - 1) {
                    sim.violate("no holes", n + " opened " + epoch + " at " + start + " without a gap but delivered up to "
                            + n.last);
                }
                if (provider == null) {
                    sim.violate("served", n + " still waits for a state but opened " + epoch
                            + " as synced (no provider named)");
                } else {
                    n.provider = provider;   // the state it waits for is the same; the provider is this epoch's
                }
            }
        }
    }

    /** {@code n} installs the state {@code p} holds, up to its gap, then what it delivered since. */
    void install(SimNode n, SimNode p) {
        List<String> state = new ArrayList<>(p.app.subList(0, (int) (n.gapStart - 1 - p.base)));
        state.addAll(n.buffered);
        n.base = p.base;
        n.app = state;
        n.buffered = new ArrayList<>();
        n.standing = SimNode.Standing.SYNCED;
        n.everSynced = true;
    }
}
