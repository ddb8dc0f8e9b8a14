package org.fts.loadtest.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.fts.loadtest.chaos.FaultPlan.Episode;

/**
 * Runs a {@link FaultPlan} against the replicas until a deadline, then ends every fault it caused.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Episodes run one after another; an episode's faults end before the next gap starts, except a killed
 *       replica's restart, which is launched but not waited for (joining can take long during a partition).</li>
 *   <li>A crash ({@link Episode#needsEveryReplicaServing()}) starts only once every replica serves, and has for
 *       {@link #SETTLE_MILLIS}, so that a replica is killed only when no other is down, restarting or still
 *       fetching its state. If they do not all serve within {@link #ADMISSION_MILLIS}, the episode is skipped
 *       (and logged).</li>
 *   <li>When the deadline passes, or the thread is interrupted, every packet drop is removed, every isolated
 *       replica healed, every paused one continued, and every replica not running restarted;
 *       {@link #lastFaultEnd()} is when the last fault ended.</li>
 *   <li>Every action is logged ({@link FaultLog}); an action that fails is logged and the schedule goes on.</li>
 *   <li>A replica found not running although the nemesis did not kill it (it exited by itself, e.g. failing
 *       to start) is logged, counted ({@link #unexpectedExits()}) and started again.</li>
 * </ul>
 */
public final class Nemesis {
    /** How long a crash waits for every replica to serve before it is skipped. */
    public static final long ADMISSION_MILLIS = 60_000;
    /**
     * How long every replica must keep serving before a crash: a replica back from a long pause or isolation
     * may answer for a moment from its old view until the merge (MERGE3) tells it otherwise; one probe would
     * take that for health.
     */
    public static final long SETTLE_MILLIS = 3_000;

    /** What the nemesis acts on: the replicas (a {@code ReplicaCluster} in a run, a fake in tests). */
    public interface Target {
        int size();

        void kill(int i) throws Exception;

        /** Starts a replica that is not running again, without waiting for it to serve. */
        void restart(int i) throws Exception;

        boolean running(int i);

        void pause(int i) throws Exception;

        void resume(int i) throws Exception;

        void isolate(int i) throws Exception;

        void heal(int i) throws Exception;

        /** Drops every packet from replica {@code from} to replica {@code to}, until {@link #restoreNet}. */
        void cut(int from, int to) throws Exception;

        /** Drops {@code percent} % of the packets from replica {@code from} to {@code to}, until restoreNet. */
        void lossy(int from, int to, int percent) throws Exception;

        /** Ends every {@link #cut} and {@link #lossy}. */
        void restoreNet() throws Exception;

        /** Whether replica {@code i} answers a request now (bounded: returns within a few seconds). */
        boolean serves(int i);
    }

    /** Time, so that tests can run a schedule in virtual time. */
    public interface Clock {
        Clock SYSTEM = new Clock() {
            @Override
            public long nanos() {
                return System.nanoTime();
            }

            @Override
            public void sleep(long millis) throws InterruptedException {
                Thread.sleep(millis);
            }
        };

        long nanos();

        void sleep(long millis) throws InterruptedException;
    }

    private final FaultPlan plan;
    private final Target target;
    private final FaultLog log;
    private final Clock clock;
    private final Set<Integer> killed = new TreeSet<>();
    private final Set<Integer> paused = new TreeSet<>();
    private final Set<Integer> isolated = new TreeSet<>();
    /** Whether packet drops may be in place (set before they are: one that fails halfway may leave some). */
    private boolean netFaulted;
    private final List<Episode> done = new ArrayList<>();
    private int faults;
    private int unexpectedExits;
    private long lastFaultEnd;
    /** Set when an action's bounded wait was interrupted: the schedule stops, the faults still end. */
    private boolean interrupted;

    public Nemesis(FaultPlan plan, Target target, FaultLog log, Clock clock) {
        this.plan = plan;
        this.target = target;
        this.log = log;
        this.clock = clock;
    }

    /**
     * Runs episodes until {@code deadline} ({@link Clock#nanos()}), then ends every fault. Returns early, with
     * every fault ended, if interrupted (the interrupt status is kept).
     */
    public void run(long deadline) {
        try {
            while (!interrupted) {
                Episode e = plan.next();
                if (!sleepUntil(clock.nanos() + TimeUnit.MILLISECONDS.toNanos(e.gapMillis()), deadline)) {
                    break;
                }
                if (e.needsEveryReplicaServing() && !everyReplicaServes(deadline)) {
                    log("skipped, not every replica served (within " + ADMISSION_MILLIS / 1000 + " s or before the "
                            + "end): " + e);
                    continue;
                }
                log("episode: " + e);
                done.add(e);
                play(e, deadline);
            }
        } catch (InterruptedException e) {
            interrupted = true;   // set again only after endAll: its bounded waits would fail at once
            log("interrupted");
        } finally {
            endAll();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void play(Episode e, long deadline) throws InterruptedException {
        int r = e.replica();
        switch (e.action()) {
            case KILL -> {
                if (inject("kill -9 r" + r, () -> target.kill(r))) {
                    killed.add(r);
                    sleepUntil(after(e.holdMillis()), deadline);
                    restart(r);
                }
            }
            case KILL_ALL -> {
                for (int i = 0; i < target.size(); i++) {
                    int v = i;
                    if (inject("kill -9 r" + v, () -> target.kill(v))) {
                        killed.add(v);
                    }
                }
                sleepUntil(after(e.holdMillis()), deadline);
                for (int v : List.copyOf(killed)) {
                    restart(v);
                }
            }
            case PAUSE -> {
                if (inject("SIGSTOP r" + r, () -> target.pause(r))) {
                    paused.add(r);
                    sleepUntil(after(e.holdMillis()), deadline);
                    resume(r);
                }
            }
            case ISOLATE -> {
                if (isolate(r)) {
                    sleepUntil(after(e.holdMillis()), deadline);
                    heal(r);
                }
            }
            case ISOLATE_TWO -> {
                long healFirst = after(e.holdMillis());
                if (isolate(r)) {
                    if (sleepUntil(after(e.secondAfterMillis()), deadline) && isolate(e.second())) {
                        sleepUntil(after(e.secondHoldMillis()), deadline);
                        heal(e.second());
                    }
                    sleepUntil(healFirst, deadline);
                    heal(r);
                }
            }
            case CUT_OFF, BRIDGE, ONEWAY, LOSSY -> {
                netFaulted = true;
                if (inject(dropping(e), () -> drop(e))) {
                    sleepUntil(after(e.holdMillis()), deadline);
                }
                restoreNet();
            }
            default -> throw new IllegalStateException(e.toString());
        }
    }

    /** Installs a network episode's drops, one direction at a time. */
    private void drop(Episode e) throws Exception {
        for (FaultPlan.Link l : e.links(target.size())) {
            if (e.action() == FaultPlan.Action.LOSSY) {
                target.lossy(l.from(), l.to(), e.lossPercent());
            } else {
                target.cut(l.from(), l.to());
            }
        }
    }

    private String dropping(Episode e) {
        return (e.action() == FaultPlan.Action.LOSSY ? "drop " + e.lossPercent() + "% of " : "drop all of ")
                + e.links(target.size()).stream().map(Object::toString).collect(Collectors.joining(" "));
    }

    /** Ends every fault still in place; restarts every replica not running. Never sleeps. */
    private void endAll() {
        if (netFaulted) {
            restoreNet();
        }
        for (int r : List.copyOf(isolated)) {
            heal(r);
        }
        for (int r : List.copyOf(paused)) {
            resume(r);
        }
        for (int r = 0; r < target.size(); r++) {
            if (killed.contains(r) || !target.running(r)) {
                if (!killed.contains(r)) {
                    noteUnexpectedExit(r);
                }
                restart(r);
            }
        }
        if (faults == 0) {
            lastFaultEnd = clock.nanos();
        }
        log("every fault ended (" + faults + " injected)");
    }

    private boolean isolate(int r) {
        if (inject("isolate r" + r, () -> target.isolate(r))) {
            isolated.add(r);
            return true;
        }
        return false;
    }

    private void heal(int r) {
        act("heal r" + r, () -> target.heal(r));
        isolated.remove(r);   // even if it failed: nothing else to try
        lastFaultEnd = clock.nanos();
    }

    private void restoreNet() {
        if (act("restore the network (every drop removed)", target::restoreNet)) {
            netFaulted = false;   // else tried again at the next episode's end, or at the end
        }
        lastFaultEnd = clock.nanos();
    }

    private void resume(int r) {
        act("SIGCONT r" + r, () -> target.resume(r));
        paused.remove(r);
        lastFaultEnd = clock.nanos();
    }

    private void restart(int r) {
        act("restart r" + r + " (not waiting for it)", () -> target.restart(r));
        killed.remove(r);
        lastFaultEnd = clock.nanos();
    }

    /**
     * Waits until every replica has served on every probe for {@link #SETTLE_MILLIS}, at most ADMISSION_MILLIS
     * and not past the deadline.
     */
    private boolean everyReplicaServes(long deadline) throws InterruptedException {
        long until = Math.min(deadline, after(ADMISSION_MILLIS));
        long since = -1;   // when the current run of probes where all served began
        while (true) {
            boolean all = true;
            for (int r = 0; r < target.size() && all; r++) {
                if (!target.running(r) && !killed.contains(r)) {
                    noteUnexpectedExit(r);
                    restart(r);
                }
                all = target.serves(r);
            }
            since = all ? (since < 0 ? clock.nanos() : since) : -1;
            if (all && clock.nanos() - since >= TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS)) {
                return true;
            }
            if (clock.nanos() >= until) {
                return false;
            }
            sleepUntil(after(250), until);
        }
    }

    private void noteUnexpectedExit(int r) {
        unexpectedExits++;
        log("r" + r + " is not running, yet the nemesis did not kill it: it exited by itself (see its log); "
                + "starting it again");
    }

    /** Starts a fault; logs it, or its failure. Returns whether it succeeded. */
    private boolean inject(String what, Action a) {
        boolean ok = act(what, a);
        faults += ok ? 1 : 0;
        return ok;
    }

    /** Runs one action; logs it, or its failure. Returns whether it succeeded. */
    private boolean act(String what, Action a) {
        try {
            a.run();
            log(what);
            return true;
        } catch (InterruptedException e) {
            interrupted = true;
            log(what + " interrupted");
            return false;
        } catch (Exception e) {
            log(what + " FAILED: " + e);
            return false;
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    private long after(long millis) {
        return clock.nanos() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Sleeps until {@code until}, but not past {@code deadline}; false if the deadline came first. */
    private boolean sleepUntil(long until, long deadline) throws InterruptedException {
        if (interrupted) {
            throw new InterruptedException();
        }
        long end = Math.min(until, deadline);
        for (long left = end - clock.nanos(); left > 0; left = end - clock.nanos()) {
            clock.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        return until <= deadline;
    }

    private void log(String what) {
        log.record(clock.nanos(), what);
    }

    /** Faults injected (kills, pauses, isolations, network episodes). */
    public int faults() {
        return faults;
    }

    public int unexpectedExits() {
        return unexpectedExits;
    }

    /** When the last fault ended ({@link Clock#nanos()}): the last heal, SIGCONT, restart or network restore. */
    public long lastFaultEnd() {
        return lastFaultEnd;
    }

    /** The episodes played, in order. */
    public List<Episode> played() {
        return List.copyOf(done);
    }
}
