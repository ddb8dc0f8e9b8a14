package org.fts.goa;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * The primary-view rule (docs/primary-view.md), pure bookkeeping on the delivery thread: whether this
 * replica's view holds a strict majority of the group size N, and whether its state is <em>current</em>
 * (the state of the primary component's order up to what it delivered).
 *
 * <ul>
 *   <li>Majorities count distinct replica ids, not members: a restarted replica comes back as a new member
 *       {@code r1#<incarnation>} while its dead predecessor may still be in the view.</li>
 *   <li>A replica is current when it founded the group (its first view holds only itself: the initial state)
 *       or once it installed a state transfer.</li>
 *   <li>It stops being current when it leaves a primary view for a minority one (another primary may make
 *       progress without it), when a merge joins it, from a non-primary side, to a side that was primary,
 *       and when it skips a delivery (see {@link #skipped()}).</li>
 * </ul>
 * A replica that is not current executes nothing until it installs the state again.
 */
final class PrimaryView {
    private final int groupSize;
    private View view;
    private boolean primary;
    private boolean current;

    PrimaryView(int groupSize) {
        this.groupSize = groupSize;
    }

    /** The replica id of a member name {@code <replica>#<incarnation>}. */
    static String replicaOf(MemberId m) {
        String n = m.name();
        int hash = n.indexOf('#');
        return hash < 0 ? n : n.substring(0, hash);
    }

    static int replicas(Collection<MemberId> members) {
        Set<String> ids = new HashSet<>();
        for (MemberId m : members) {
            ids.add(replicaOf(m));
        }
        return ids.size();
    }

    int majority() {
        return groupSize / 2 + 1;
    }

    boolean isPrimary(Collection<MemberId> members) {
        return replicas(members) >= majority();
    }

    /** Follows a view change; returns true if this replica lost its state's currency here. */
    boolean onView(View v) {
        boolean was = primary;
        boolean now = isPrimary(v.members());
        boolean wasCurrent = current;
        if (view == null) {
            current = v.size() == 1;   // the founder holds the initial state; anyone else must fetch it
        } else if (v.isMerge() && !was) {
            for (var side : v.subgroups()) {
                if (!side.contains(v.self()) && isPrimary(side)) {
                    current = false;   // the primary side went on without us
                }
            }
        }
        if (was && !now) {
            current = false;
        }
        primary = now;
        view = v;
        return wasCurrent && !current;
    }

    /** This replica left out a delivery (it was not primary): its state no longer follows the order. */
    void skipped() {
        current = false;
    }

    void installed() {
        current = true;
    }

    boolean primary() {
        return primary;
    }

    boolean current() {
        return current;
    }

    View view() {
        return view;
    }

    int groupSize() {
        return groupSize;
    }

    /** Why this replica does not serve, or null if it does. */
    String notServing() {
        if (view == null) {
            return "has not joined its group yet";
        }
        if (!primary) {
            return "is in a minority view (" + replicas(view.members()) + " of " + groupSize
                    + " replicas, fts.group.size): it serves only with a majority";
        }
        if (!current) {
            return "is obtaining the group's state";
        }
        return null;
    }
}
