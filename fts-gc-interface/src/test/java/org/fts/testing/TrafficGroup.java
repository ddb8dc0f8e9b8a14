package org.fts.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.gc.GroupException;
import org.fts.gc.View;
import org.fts.process.Waits;

/**
 * A group of a binding's members in this JVM under a steady trickle of broadcasts (one per member every 5 ms), for
 * tests that inject faults and check what the group does after them: it starts the members, keeps the traffic
 * flowing, waits for one primary view, delivers a last round everywhere, and checks that no two members delivered
 * in different orders. Every wait is bounded; {@link #close} stops the traffic and closes every member.
 */
public final class TrafficGroup implements AutoCloseable {
    private static final long TRICKLE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    public final List<GroupChannel> channels = new ArrayList<>();
    public final List<Recorder> recorders = new ArrayList<>();
    private final List<Thread> traffic = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();

    private TrafficGroup() {
    }

    /**
     * Members {@code names} of a new group (named {@code prefix}-random) on the configuration {@code config} (the
     * binding, its keys), joined and in one view of all of them within {@code within}; no traffic yet.
     */
    public static TrafficGroup start(Properties config, String prefix, Duration within, String... names) {
        TrafficGroup g = new TrafficGroup();
        String group = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            for (String name : names) {
                Properties p = new Properties();
                p.putAll(config);
                p.setProperty("fts.group.size", Integer.toString(names.length));
                SyncingListener l = new SyncingListener();
                GroupChannel ch = GroupChannels.create(p, name);
                l.channel = ch;
                g.channels.add(ch);
                g.recorders.add(l.recorder);
                ch.join(group, l);
            }
            for (Recorder r : g.recorders) {
                r.awaitView(v -> v.size() == names.length, within, names.length + " members");
            }
        } catch (RuntimeException | Error e) {
            g.close();
            throw e;
        }
        return g;
    }

    /** Starts every member's trickle of broadcasts, and waits until each member delivered 100 of them. */
    public TrafficGroup withTraffic(Duration within) {
        for (GroupChannel ch : channels) {
            String name = ch.self().name();
            Thread t = new Thread(() -> {
                for (int k = 0; !stop.get(); k++) {
                    try {
                        ch.abcast((name + ":" + k).getBytes(StandardCharsets.UTF_8));
                    } catch (GroupException e) {
                        return;   // closed
                    }
                    LockSupport.parkNanos(TRICKLE_NANOS);   // a trickle, not a flood: the rate, not a wait
                }
            }, "traffic-" + name);
            traffic.add(t);
            t.start();
        }
        Waits.await(() -> recorders.stream().allMatch(r -> r.deliveredCount() > 100), within, () -> "traffic flows");
        return this;
    }

    /** Stops the traffic (and waits for its threads, 10 s at most each). */
    public void stopTraffic() throws InterruptedException {
        stop.set(true);
        for (Thread t : traffic) {
            t.join(10_000);
        }
    }

    /** Member {@code i}. */
    public GroupChannel member(int i) {
        return channels.get(i);
    }

    /** How many views each member has installed so far. */
    public List<Integer> viewCounts() {
        return recorders.stream().map(r -> r.views().size()).toList();
    }

    /** How many broadcasts each member has delivered so far. */
    public List<Integer> deliveredCounts() {
        return recorders.stream().map(Recorder::deliveredCount).toList();
    }

    /** Waits until some member delivered more than {@code more} broadcasts beyond {@code mark} ({@link #deliveredCounts}). */
    public void awaitProgress(List<Integer> mark, int more, Duration within, String what) {
        Waits.await(() -> {
            for (int i = 0; i < recorders.size(); i++) {
                if (recorders.get(i).deliveredCount() > mark.get(i) + more) {
                    return true;
                }
            }
            return false;
        }, within, () -> what + ": the group delivers; views " + views());
    }

    /** Waits for one view of every member, with its epoch open at every member. */
    public void awaitOnePrimaryView(Duration within, String what) {
        Waits.await(this::onePrimaryView, within, () -> what + ": one primary view of " + channels.size() + ": views "
                + views() + ", epochs " + recorders.stream().map(Recorder::lastEpoch).toList());
    }

    /** Whether every member is in one view of all of them, with its epoch open everywhere. */
    public boolean onePrimaryView() {
        View v0 = channels.get(0).view();
        return v0 != null && v0.size() == channels.size() && channels.stream().allMatch(c -> c.view().id() == v0.id())
                && recorders.stream().allMatch(r -> r.lastEpoch() != null && r.lastEpoch().id() == v0.id());
    }

    /**
     * One broadcast per member tagged {@code tag}; returns whether every member delivered all of them within
     * {@code within} (a view change may rightly make a member miss a round).
     */
    public boolean round(String tag, Duration within) {
        for (GroupChannel ch : channels) {
            ch.abcast((tag + ch.self()).getBytes(StandardCharsets.UTF_8));
        }
        for (Recorder r : recorders) {
            try {
                r.awaitState(x -> x.deliveredUnsafe().stream().filter(d -> d.text().startsWith(tag)).count()
                        == channels.size(), within, () -> "round " + tag);
            } catch (AssertionError notYet) {
                return false;
            }
        }
        return true;
    }

    /** Fails unless every member delivered the same broadcasts in the same order (as far as each got), and some. */
    public void assertOneOrder(String what) {
        OneOrder.assertOneOrder(recorders.stream().map(Recorder::delivered).toList(), what);
        if (recorders.stream().anyMatch(r -> r.deliveredCount() == 0)) {
            throw new AssertionError(what + ": a member delivered nothing");
        }
    }

    /** Every member's current view. */
    public List<View> views() {
        return channels.stream().map(GroupChannel::view).toList();
    }

    @Override
    public void close() {
        stop.set(true);
        for (Thread t : traffic) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        channels.forEach(GroupChannel::close);
    }
}
