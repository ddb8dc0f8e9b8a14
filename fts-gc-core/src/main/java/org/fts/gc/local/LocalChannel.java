package org.fts.gc.local;

import java.util.ArrayList;
import java.util.List;

import org.fts.gc.Epoch;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.GroupException;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.Whiteboard;
import org.fts.gc.internal.Board;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;
import org.fts.gc.internal.EpochPlan;
import org.fts.gc.internal.Pumps;

/**
 * A member of a group on a {@link LocalNetwork}: the {@code local} binding's {@link GroupChannel}. Its
 * history bookkeeping (fresh, synced, last epoch, last entry) is guarded by its group's monitor.
 */
public final class LocalChannel implements GroupChannel, GroupChannel.Diagnostics {
    @Override
    public GroupChannel.Diagnostics diagnostics() {
        return this;
    }

    private final LocalNetwork network;
    private final MemberId self;
    private final GroupConfig config;
    private volatile LocalGroup group;
    private volatile DeliveryPump pump;
    private volatile View view;
    private volatile boolean closed;
    // guarded by the group's monitor
    private boolean fresh = true;
    private volatile boolean synced;   // also cleared by the pump when its listener falls behind
    private EpochId epoch;
    private boolean epochFounding;
    private java.util.List<MemberId> epochMembers = java.util.List.of();
    private long last;
    private final List<byte[]> held = new ArrayList<>();
    private final Board board;
    private final Whiteboard whiteboard = new Whiteboard() {
        @Override
        public void publish(long... values) {
            board.publish(values);
            LocalGroup g = group;
            if (g != null && !closed) {
                g.publish(LocalChannel.this);
            }
        }

        @Override
        public java.util.Map<MemberId, Entry> entries() {
            return board.entries();
        }
    };

    LocalChannel(LocalNetwork network, MemberId self, GroupConfig config) {
        this.network = network;
        this.self = self;
        this.config = config;
        this.board = new Board(self);
    }

    @Override
    public Whiteboard whiteboard() {
        return whiteboard;
    }

    Board board() {
        return board;
    }

    @Override
    public synchronized void join(String groupName, GroupListener listener) {
        if (closed || group != null) {
            throw new GroupException(self + ": a channel joins once");
        }
        DeliveryPump p = new DeliveryPump(self.name(), listener, config.maxBacklog(), () -> synced = false);
        p.setDelayNanos(network.delayNanos());
        p.start();
        pump = p;
        LocalGroup g = network.group(groupName);
        try {
            g.join(this);
        } catch (GroupException e) {
            p.stop(1000);
            throw e;
        }
        group = g;
    }

    @Override
    public void abcast(byte[] payload) {
        joined().abcast(this, payload);
    }

    @Override
    public void send(MemberId to, byte[] payload) {
        joined().send(this, to, payload);
    }

    @Override
    public void synced() {
        LocalGroup g = group;
        if (g != null) {
            g.synced(this);
        }
    }

    @Override
    public MemberId self() {
        return self;
    }

    @Override
    public org.fts.gc.Voters voters() {
        return config.voterSet();
    }

    @Override
    public View view() {
        return view;
    }

    @Override
    public void onDeliveryThread(Runnable task) {
        Pumps.task(pump, closed, self, task);
    }

    /** Queued behind every broadcast its partition ordered so far, all of which are queued here already. */
    @Override
    public void readBarrier(org.fts.gc.ReadBarrier barrier) {
        LocalGroup g = group;
        if (g == null || closed) {
            throw new GroupException(self + " is not joined");
        }
        g.readBarrier(this, barrier);
    }

    void enqueueTask(Runnable task) {
        pump.setDelayNanos(network.delayNanos());
        pump.task(task);
    }

    @Override
    public boolean isDeliveryThread() {
        return Pumps.isDeliveryThread(pump);
    }

    @Override
    public int pendingDeliveries() {
        return Pumps.pending(pump);
    }

    @Override
    public long pendingBytes() {
        return Pumps.pendingBytes(pump);
    }

    @Override
    public long fellBehind() {
        return Pumps.fellBehind(pump);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LocalGroup g = group;
        if (g != null) {
            g.remove(self, false);
        }
        DeliveryPump p = pump;
        if (p != null) {
            p.stop(1000);   // outside the group's lock: the listener may be calling into the group
        }
    }

    private LocalGroup joined() {
        LocalGroup g = group;
        if (g == null || closed) {
            throw new GroupException(self + ": channel is " + (closed ? "closed" : "not joined"));
        }
        return g;
    }

    GroupConfig config() {
        return config;
    }

    // --- called by the group, under its monitor ---

    /** Called when this member leaves or crashes: no further callbacks. */
    void detach() {
        closed = true;
        DeliveryPump p = pump;
        if (p != null) {
            p.stop(0);
        }
    }

    EpochPlan.Report report() {
        return new EpochPlan.Report(fresh, synced, epoch, epochFounding, epochMembers, last);
    }

    /** The partition opened {@code e}; this member continues from {@code upTo} (with {@code opened.gap()}: skips). */
    void open(Epoch opened, EpochId e, long upTo, boolean founding) {
        if (opened.gap()) {
            synced = false;
        } else if (founding) {
            synced = true;
        }
        fresh = false;
        epochFounding = founding && !opened.gap();
        epochMembers = opened.members();
        epoch = e;
        last = upTo;
        pump.setDelayNanos(network.delayNanos());
        pump.epoch(opened);
    }

    void markSynced() {
        if (!fresh && pump.noGapPending()) {
            synced = true;
        }
    }

    void hold(byte[] payload) {
        held.add(payload);
    }

    List<byte[]> takeHeld() {
        List<byte[]> out = new ArrayList<>(held);
        held.clear();
        return out;
    }

    void enqueueBroadcast(MemberId sender, byte[] payload, long gseq) {
        last = gseq;
        pump.setDelayNanos(network.delayNanos());
        pump.broadcast(sender, payload);
    }

    void enqueueDirect(MemberId sender, byte[] payload) {
        pump.setDelayNanos(network.delayNanos());
        pump.direct(sender, payload);
    }

    void enqueueView(View v) {
        view = v;
        board.viewChanged(v);
        pump.setDelayNanos(network.delayNanos());
        pump.view(v);
    }

    void enqueueNotPrimary(String reason) {
        pump.setDelayNanos(network.delayNanos());
        pump.notPrimary(view, reason);
    }

    @Override
    public String toString() {
        return "LocalChannel[" + self + "]";
    }
}
