package org.fts.goa.intake;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.View;
import org.fts.gc.Voters;

/**
 * Whether this replica may execute and answer requests (docs/primary-view.md): the group layer says whether
 * its view is primary (an epoch opened, or the view is not primary, and why) and whether its state holds the
 * group's history; the replica adds a quick check of its own (a view holding fewer than a majority of the N
 * replicas cannot be primary, so it refuses at once instead of waiting for the recovery to say so).
 *
 * <p>Changed on the delivery thread only; {@link #notServing()} is read by request threads, and
 * {@link #awaitServing} and {@link #started()} wait for it.
 */
public final class Standing {
    /** The voters as the binding holds them now: read at each view (they may change: docs/membership.md). */
    private final java.util.function.Supplier<Voters> group;
    private View view;
    /** Why the view cannot serve (minority, or not primary after its recovery), or null. */
    private String blocked = "has not joined its group yet";
    private volatile boolean epochOpen;   // read over JMX too
    private boolean current;
    private boolean everOpened;
    /** Whether the application activated its objects: before, a request would find none. */
    private boolean activated;
    private volatile String notServing = blocked;
    /** How many times this replica was found not serving: a request compares it around its cast. */
    private volatile long interruptions;
    /** Completes once activate() may return: the state is current, or the group has no primary yet. */
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    /** Whether its settings were compared with its view's members' ({@link SettingsCheck}): start waits for it. */
    private boolean settingsSettled;
    /** Why it refuses to serve for good (its settings differ from the group's), or null. */
    private String refused;

    /** Every replica votes. */
    public Standing(int groupSize) {
        this(new GroupConfig(groupSize, true));
    }

    /** Counts the voters of {@code group} (all replicas, unless {@code fts.group.voters} names them). */
    public Standing(GroupConfig group) {
        this(group::voterSet);
    }

    /** Counts the voters the binding names at each view ({@link org.fts.gc.GroupChannel#voters}). */
    public Standing(java.util.function.Supplier<Voters> voters) {
        this.group = voters;
    }

    /** A new view: until its recovery decides, requests are taken and wait for the epoch. */
    public void onView(View v) {
        view = v;
        epochOpen = false;
        Voters voters = group.get();
        int here = voters.count(v.members());
        blocked = voters.n() > 0 && here < voters.majority()
                ? "is in a minority view: the view holds " + here + " of the " + voters.n()
                        + (voters.ids().isEmpty() ? " replicas (fts.group.size)" : " voters (" + voters + ")")
                        + "; a primary needs " + voters.majority()
                : null;
        publish();
    }

    /** The view's epoch opened. Returns true if this replica lost its state's currency here. */
    public boolean onEpoch(Epoch e) {
        boolean was = current;
        epochOpen = true;
        everOpened = true;
        blocked = null;
        current = e.synced();
        publish();
        return was && !current;
    }

    public void onNotPrimary(String reason) {
        epochOpen = false;
        blocked = "is in a view that is not primary: " + reason;   // the group layer's words
        publish();
    }

    /** The application activated its objects. */
    public void activated() {
        activated = true;
        publish();
    }

    /**
     * The group layer dropped broadcasts this replica's execution had fallen too far behind to queue: its state
     * misses them. Returns true if it was current.
     */
    public boolean fellBehind() {
        boolean was = current;
        current = false;
        publish();
        return was;
    }

    /** A state transfer installed the group's state. */
    public void installed() {
        current = true;
        publish();
    }

    /** Its settings were compared with the group's (or could not be, in time): activate() may return. */
    public void settingsSettled() {
        settingsSettled = true;
        publish();
    }

    /**
     * Its settings differ from the group's: if activate() has not returned yet, it fails with {@code why}, and
     * the replica never serves; returns false (and changes nothing) if it has returned already.
     */
    public boolean refuse(RuntimeException why) {
        if (started.isDone()) {
            return false;
        }
        refused = why.getMessage();
        started.completeExceptionally(why);
        publish();
        return true;
    }

    private void publish() {
        String why = refused != null ? "refuses to serve: " + refused : blocked != null ? blocked
                : !current ? "is obtaining the group's state"
                : !activated ? "has not activated its objects yet"
                : settingsSettled ? null : "is comparing its settings with the group's";
        if (why != null) {
            interruptions++;   // single writer (the delivery thread); before the waiting requests are failed
        }
        synchronized (this) {
            notServing = why;
            notifyAll();
        }
        if (settingsSettled && refused == null
                && (why == null || (!everOpened && blocked != null && view != null && activated))) {
            started.complete(null);   // serving; or no primary yet: the replica serves once one forms
        }
    }

    public boolean current() {
        return current;
    }

    /** Whether an epoch opened here since the replica joined. */
    public boolean everOpened() {
        return everOpened;
    }

    /** Whether the group layer has opened an epoch here since the last view (primary for now). */
    public boolean epochOpen() {
        return epochOpen;
    }

    public View view() {
        return view;
    }

    /** Why this replica does not serve, or null if it does (between a view and its epoch it serves: requests wait). */
    public String notServing() {
        return notServing;
    }

    /**
     * A count that grows each time this replica is found not serving, before the requests waiting here are
     * failed. A request thread reads it before it checks {@link #notServing()} and again once its request is
     * registered as waiting: if it changed, the request may have missed that failure and fails itself.
     */
    long interruptions() {
        return interruptions;
    }

    /** Waits up to {@code millis} until this replica serves; returns whether it does. */
    public synchronized boolean awaitServing(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (notServing != null) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Completes when the replica serves, or learns that the group has no primary yet. */
    public CompletableFuture<Void> started() {
        return started;
    }
}
