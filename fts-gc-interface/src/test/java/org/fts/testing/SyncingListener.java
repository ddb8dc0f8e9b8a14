package org.fts.testing;

import org.fts.gc.Epoch;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * A {@link Recorder} for group-layer tests without an application state: told of a gap, or named a provider, it
 * "installs the state" at once ({@link GroupChannel#synced()}). Set {@link #channel} before joining.
 */
public final class SyncingListener implements GroupListener {
    public final Recorder recorder = new Recorder();
    public volatile GroupChannel channel;

    @Override
    public void deliver(MemberId sender, byte[] payload) {
        recorder.deliver(sender, payload);
    }

    @Override
    public void viewAccepted(View view) {
        recorder.viewAccepted(view);
    }

    @Override
    public void epochOpened(Epoch epoch) {
        recorder.epochOpened(epoch);
        if (epoch.gap() || epoch.provider() != null) {
            channel.synced();
        }
    }

    @Override
    public void notPrimary(View view, String reason) {
        recorder.notPrimary(view, reason);
    }
}
