package org.fts.order;

import java.util.concurrent.Executor;

import org.fts.gc.FailStop;
import org.fts.gc.MemberId;

/**
 * Offload ordering's sending side: turns each grant this member's origin accepts into its DATA multicasts. A
 * grant is received on a thread that delivers messages; the multicasts are flow-controlled, and a thread that
 * delivers messages must never wait for credits that return only once it is done ({@code JGroupsFlowControlTest}),
 * so the grant is handed to {@code executor}, one thread in the JGroups binding. The entry is held here first, then
 * multicast; the acknowledgement that follows lets the sequencer count this member.
 */
final class OffloadSender {
    private final Origin origin;
    private final Member member;
    private final TotalOrder.Transport net;
    private final Executor executor;
    private final Runnable ack;

    OffloadSender(Origin origin, Member member, TotalOrder.Transport net, Executor executor, Runnable ack) {
        this.origin = origin;
        this.member = member;
        this.net = net;
        this.executor = executor;
        this.ack = ack;
    }

    /** {@code from} granted positions to this member's origin; never multicasts on the calling thread's behalf. */
    void onGrant(MemberId from, Wire.Grant g) {
        executor.execute(() -> FailStop.guard(() -> send(from, g)));
    }

    private void send(MemberId from, Wire.Grant g) {
        Origin.Granted granted = origin.granted(from, g);
        if (granted.epoch() == null) {
            return;   // stale: another epoch's
        }
        for (Wire.Entry e : granted.entries()) {
            Wire.Data d = new Wire.Data(granted.epoch().view(), granted.epoch().sequencer(), e);
            member.onData(d);
            net.multicast(Wire.encode(d));
        }
        ack.run();
    }
}
