package org.fts.goa;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.View;

/**
 * Whether this replica may execute and answer requests (docs/primary-view.md): the group layer says whether
 * its view is primary (an epoch opened, or the view is not primary, and why) and whether its state holds the
 * group's history; the replica adds a quick check of its own (a view holding fewer than a majority of the N
 * replicas cannot be primary, so it refuses at once instead of waiting for the recovery to say so). Pure
 * bookkeeping, on the delivery thread.
 */
final class Standing {
    private final int groupSize;
    private View view;
    /** Why the view cannot serve (minority, or not primary after its recovery), or null. */
    private String blocked = "has not joined its group yet";
    private boolean epochOpen;
    private boolean current;
    private boolean everOpened;

    Standing(int groupSize) {
        this.groupSize = groupSize;
    }

    private int majority() {
        return groupSize / 2 + 1;
    }

    /** A new view: until its recovery decides, requests are taken and wait for the epoch. */
    void onView(View v) {
        view = v;
        epochOpen = false;
        int here = GroupConfig.replicas(v.members());
        blocked = here < majority()
                ? "is in a minority view: the view holds " + here + " of the " + groupSize + " replicas "
                        + "(fts.group.size); a primary needs " + majority()
                : null;
    }

    /** The view's epoch opened. Returns true if this replica lost its state's currency here. */
    boolean onEpoch(Epoch e) {
        boolean was = current;
        epochOpen = true;
        everOpened = true;
        blocked = null;
        current = e.synced();
        return was && !current;
    }

    void onNotPrimary(String reason) {
        epochOpen = false;
        blocked = "is in a view that is not primary: " + reason;   // the group layer's words
    }

    /** A state transfer installed the group's state. */
    void installed() {
        current = true;
    }

    boolean current() {
        return current;
    }

    /** Whether this replica may give its state to another: current, in an open epoch. */
    boolean canProvide() {
        return current && epochOpen;
    }

    /** Whether the group layer has opened an epoch here since the last view (primary for now). */
    boolean epochOpen() {
        return epochOpen;
    }

    /** Whether any epoch ever opened here: before that, this replica has no state of the group to wait for. */
    boolean everOpened() {
        return everOpened;
    }

    View view() {
        return view;
    }

    /** Why this replica does not serve, or null if it does (between a view and its epoch it serves: requests wait). */
    String notServing() {
        if (blocked != null) {
            return blocked;
        }
        if (!current) {
            return "is obtaining the group's state";
        }
        return null;
    }
}
