package org.fts.gc.local;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupException;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;

/** A member of a group on a {@link LocalNetwork}: the {@code local} binding's {@link GroupChannel}. */
public final class LocalChannel implements GroupChannel {
    private final LocalNetwork network;
    private final MemberId self;
    private volatile LocalGroup group;
    private volatile DeliveryPump pump;
    private volatile View view;
    private volatile boolean closed;

    LocalChannel(LocalNetwork network, MemberId self) {
        this.network = network;
        this.self = self;
    }

    @Override
    public synchronized void join(String groupName, GroupListener listener) {
        if (closed || group != null) {
            throw new GroupException(self + ": a channel joins once");
        }
        DeliveryPump p = new DeliveryPump(self.name(), listener);
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
    public MemberId self() {
        return self;
    }

    @Override
    public View view() {
        return view;
    }

    @Override
    public int pendingDeliveries() {
        DeliveryPump p = pump;
        return p == null ? 0 : p.pending();
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

    /** Called by the group, under its lock, when this member leaves or crashes: no further callbacks. */
    void detach() {
        closed = true;
        DeliveryPump p = pump;
        if (p != null) {
            p.stop(0);
        }
    }

    void enqueueBroadcast(MemberId sender, byte[] payload) {
        pump.setDelayNanos(network.delayNanos());
        pump.broadcast(sender, payload);
    }

    void enqueueDirect(MemberId sender, byte[] payload) {
        pump.setDelayNanos(network.delayNanos());
        pump.direct(sender, payload);
    }

    void enqueueView(View v) {
        view = v;
        pump.setDelayNanos(network.delayNanos());
        pump.view(v);
    }

    @Override
    public String toString() {
        return "LocalChannel[" + self + "]";
    }
}
