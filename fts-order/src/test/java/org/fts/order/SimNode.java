package org.fts.order;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;

/**
 * One incarnation of a replica in the protocol simulator: the real {@link TotalOrder} over the simulated
 * network, its {@link DeliveryPump} (never started: drained by the simulator), the view it installed as JGroups'
 * GMS would, and the model of its application's state that the invariants are checked against.
 */
final class SimNode implements TotalOrder.Transport, MemberObserver, GroupListener {
    /** Where the application's state stands. */
    enum Standing { FRESH, SYNCED, UNSYNCED }

    private final ProtocolSimulator sim;
    final int replica;
    final MemberId id;
    final DeliveryPump pump;
    final TotalOrder order;
    boolean alive = true;
    /** Broadcasts this incarnation made: its payloads are "r1#0:0", "r1#0:1", ... */
    int broadcasts;

    // ---- the view, as JGroups' GMS keeps it ----
    View view;
    /** The installed view's id; -1 before the first. */
    long viewId = -1;
    /** The highest view id seen, installed or not (GMS's ltime). */
    long ltime;
    /** Views on their way here (the view message arrives late). */
    final List<View> late = new ArrayList<>();

    // ---- the application's state ----
    Standing standing = Standing.FRESH;
    /** Positions up to {@code base} are not part of the history (an interrupted founding was founded again). */
    long base;
    /** The applied history: positions base+1 .. base+app.size(). */
    List<String> app = new ArrayList<>();
    /** The last epoch opened here. */
    EpochId epoch;
    /** The last position the protocol delivered here. */
    long last;
    /** While UNSYNCED: the gap's start, the provider to fetch from, what was delivered since (from gapStart). */
    long gapStart;
    MemberId provider;
    List<String> buffered = new ArrayList<>();
    /** Whether this incarnation ever held the group's state (a restarted one counts as crashed until then). */
    boolean everSynced;
    int gapsTapped;
    int gapsHanded;
    /** Delivered by the protocol, not yet handed over by the pump: the pump must hand exactly these, in order. */
    final ArrayDeque<String> toHand = new ArrayDeque<>();

    /** With {@code --durability log}: this incarnation's log, over its replica's disk; else null. */
    final SimLog log;

    SimNode(ProtocolSimulator sim, int replica, int incarnation, GroupConfig config, Ordering ordering, SimLog log) {
        this.sim = sim;
        this.replica = replica;
        this.id = new MemberId("r" + replica + "#" + incarnation);
        this.log = log;
        if (log != null && log.loaded().meta().epochSeq() != null) {
            restored(log.loaded());
        }
        this.pump = new DeliveryPump(id.name(), this);
        this.order = new TotalOrder(id, config, this, pump, log, ordering, Runnable::run, this);
        order.readClock(sim.reads()::clock);
    }

    /**
     * A restarted replica's application, from its log: its checkpoint's state (or the initial one), which the log
     * after it replays; without one it fetches the group's state, from the position after its log.
     */
    private void restored(DurableLog.Loaded l) {
        if (l.rooted()) {
            standing = Standing.SYNCED;
            everSynced = true;
            base = l.from();
            app = new ArrayList<>();
            if (l.root() != null && l.root().state() != null) {
                List<String> state = decode(l.root().state());
                base = Long.parseLong(state.get(0));
                app = new ArrayList<>(state.subList(1, state.size()));
            }
            last = l.from();
        } else {
            standing = Standing.UNSYNCED;   // it fetches a state up to where its log's verified entries end
            last = l.damaged().isEmpty() ? l.last() : l.damaged().get(0).from() - 1;
            gapStart = last + 1;
            buffered = new ArrayList<>();
        }
    }

    static byte[] encode(long base, List<String> app) {
        return (base + (app.isEmpty() ? "" : "\n" + String.join("\n", app))).getBytes(StandardCharsets.UTF_8);
    }

    static List<String> decode(byte[] state) {
        return List.of(new String(state, StandardCharsets.UTF_8).split("\n", -1));
    }

    /** Whether this member installed {@code v}'s id or a later one. */
    boolean installed(long v) {
        return viewId >= v;
    }

    /** The application's history up to {@code upTo}, if it holds it (a state transfer's source). */
    boolean covers(long upTo) {
        return base <= upTo && base + app.size() >= upTo;
    }

    String describeApp() {
        String s = standing + " app=(" + base + "," + (base + app.size()) + "] last=" + last;
        return standing == Standing.UNSYNCED ? s + " gap@" + gapStart + " provider=" + provider + " buffered="
                + buffered.size() : s;
    }

    @Override
    public String toString() {
        return id.name();
    }

    // ================================ TotalOrder.Transport ================================

    @Override
    public void unicast(MemberId to, byte[] msg) {
        sim.send(this, to, SimNetwork.Kind.UNICAST, msg);
    }

    @Override
    public void control(MemberId to, byte[] msg) {
        sim.send(this, to, SimNetwork.Kind.UNICAST, msg);
    }

    @Override
    public void urgent(MemberId to, byte[] msg) {
        sim.send(this, to, SimNetwork.Kind.URGENT, msg);
    }

    /**
     * The JGroups binding's lossy path for a batch's acknowledgement ({@code NO_RELIABILITY}): one in four is lost
     * here, drawn from the run's random, so the timer's reliable repeat is what commits the rest.
     */
    @Override
    public void ack(MemberId to, byte[] msg) {
        if (sim.rnd().nextInt(4) == 0) {
            sim.log("ACK lost " + id + " -> " + to);
            return;
        }
        sim.send(this, to, SimNetwork.Kind.URGENT, msg);
    }

    @Override
    public void multicast(byte[] msg) {
        sim.multicast(this, SimNetwork.Kind.MULTICAST, msg);
    }

    @Override
    public void multicastUrgent(byte[] msg) {
        sim.multicast(this, SimNetwork.Kind.URGENT, msg);
    }

    // ================================ MemberObserver ================================

    @Override
    public void delivered(long gseq, MemberId origin, byte[] payload) {
        sim.onDelivered(this, gseq, origin, new String(payload, StandardCharsets.UTF_8));
    }

    @Override
    public void opened(EpochId epoch, long ballot, long start, boolean gap, boolean refound, MemberId provider) {
        sim.onOpened(this, epoch, ballot, start, gap, refound, provider);
    }

    // ================================ GroupListener (the pump) ================================

    @Override
    public void deliver(MemberId sender, byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        String expected = toHand.poll();
        sim.reads().handed(text);
        if (!text.equals(expected)) {
            sim.violate("pump order", id + "'s pump handed " + text + " where the protocol delivered " + expected);
        }
    }

    @Override
    public void viewAccepted(View v) {
    }

    @Override
    public void epochOpened(Epoch epoch) {
        if (epoch.gap()) {
            gapsHanded++;
        }
    }

    /** The application's state at the checkpoint's position: what it applied up to there, if it holds that. */
    @Override
    public void checkpointDue(org.fts.gc.Checkpoint c) {
        long p = c.position();
        if (standing != Standing.SYNCED || p < base || p > base + app.size()) {
            c.skip("the simulated application does not hold its state at " + p);
            return;
        }
        c.save(encode(base, app.subList(0, (int) (p - base))));
    }

    @Override
    public void restore(long position, byte[] state) {
        // set from the log when this incarnation was made (restored)
    }
}
