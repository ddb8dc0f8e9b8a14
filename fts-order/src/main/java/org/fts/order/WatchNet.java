package org.fts.order;

import java.util.function.Supplier;

import org.fts.gc.MemberId;
import org.fts.gc.View;

/** What the {@link SequencerWatch} sends, over the total order's {@link TotalOrder.Transport}. */
final class WatchNet implements SequencerWatch.Out {
    private final TotalOrder.Transport net;
    private final Supplier<View> view;

    WatchNet(TotalOrder.Transport net, Supplier<View> view) {
        this.net = net;
        this.view = view;
    }

    @Override
    public void probe(MemberId target) {
        net.probe(target, Wire.encode(new Wire.Probe(System.nanoTime())));
    }

    @Override
    public void probeFor(MemberId helper, MemberId target) {
        net.probe(helper, Wire.encode(new Wire.ProbeFor(target)));
    }

    @Override
    public void vouch(MemberId asker, MemberId target) {
        net.probe(asker, Wire.encode(new Wire.Vouch(target)));
    }

    @Override
    public void unreachable(MemberId successor, MemberId target) {
        net.probe(successor, Wire.encode(new Wire.Unreachable(target)));
    }

    @Override
    public void suspect(MemberId target) {
        net.exclude(target, "the sequencer answered none of this member's probes, nor any other member's, after as "
                + "long a silence");
    }

    @Override
    public void leave(MemberId sequencer) {
        View v = view.get();
        if (v != null) {
            net.leaveView(v, sequencer);
        }
    }
}
