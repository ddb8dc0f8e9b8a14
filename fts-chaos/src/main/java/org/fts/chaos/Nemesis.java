package org.fts.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.fts.chaos.FaultPlan.Episode;

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

    private final FaultPlan plan;
    private final NemesisTarget target;
    private final FaultLog log;
    private final NemesisClock clock;
    private final Set<Integer> killed = new TreeSet<>();
    private final Set<Integer> paused = new TreeSet<>();
    private final Set<Integer> isolated = new TreeSet<>();
    /** Whether packet drops may be in place (set before they are: one that fails halfway may leave some). */
    private boolean netFaulted;
    private final List<Episode> done = new ArrayList<>();
    private int faults;
    private int unexpectedExits;
    private long lastFaultEnd;
    /**
     * When the latest stretch of admission probes on which every replica served began; -1 when the last probe
     * found one not serving, or a fault came after it.
     */
    private long servingSince = -1;
    /** The next replica id a replacement starts under ({@code r<size>}, then up). */
    private int nextId = -1;
    /** A new replica started in a replacement and not yet added to the voters, or null. */
    private String pendingAdd;
    /** The place a replacement killed and has not started its new replica in yet, or -1. */
    private int replacing = -1;
    /** Set when an action's bounded wait was interrupted: the schedule stops, the faults still end. */
    private boolean interrupted;

    public Nemesis(FaultPlan plan, NemesisTarget target, FaultLog log, NemesisClock clock) {
        this.plan = plan;
        this.target = target;
        this.log = log;
        this.clock = clock;
    }

    /**
     * Runs episodes until {@code deadline} ({@link NemesisClock#nanos()}), then ends every fault. Returns early, with
     * every fault ended, if interrupted (the interrupt status is kept).
     */
    public void run(long deadline) {
        try {
            while (!interrupted) {
                Episode e = plan.next();
                if (!sleepUntil(clock.nanos() + TimeUnit.MILLISECONDS.toNanos(e.gapMillis()), deadline)) {
                    break;
                }
                if (pendingAdd != null && !changeVoters("add " + pendingAdd, deadline)) {
                    // a replacement's new replica is not a voter yet: N is one short, and a fault on a voter now
                    // would be a second one (the fault model is one at a time)
                    log("skipped, " + pendingAdd + " is not a voter yet: " + e);
                    continue;
                }
                pendingAdd = null;
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
            case CORRUPT -> {
                if (inject("kill -9 r" + r, () -> target.kill(r))) {
                    killed.add(r);
                    damage(r, null, e.lossPercent(), (int) e.secondAfterMillis());
                    sleepUntil(after(e.holdMillis()), deadline);
                    restart(r);
                }
            }
            case CTRL -> ctrl(e, deadline);
            case POWER_LOSS -> powerLoss(e, deadline);
            case DISK_FULL -> diskFull(e, deadline);
            case REPLACE -> replace(e, deadline);
            default -> throw new IllegalStateException(e.toString());
        }
    }

    /**
     * A replacement (docs/membership.md): the voter at {@code e.replica()}'s place is removed from the voters, killed,
     * and a replica of a new id started in its place after {@code holdMillis}; once it serves (a learner, holding the
     * state) it is added. A refused removal (a voter not present) skips the episode; a failed add is tried again at the
     * next replacement and at the end.
     */
    private void replace(Episode e, long deadline) throws InterruptedException {
        int slot = e.replica();
        if (nextId < 0) {
            nextId = target.size();
        }
        String old = target.id(slot);
        if (!changeVoters("remove " + old, deadline)) {
            return;
        }
        String fresh = "r" + nextId++;
        replacing = slot;   // from here on the end starts the new id there, not the old one
        pendingAdd = fresh;
        if (!inject("kill -9 " + old + " (r" + slot + "'s place), removed from the voters", () -> target.kill(slot))) {
            replacing = -1;
            pendingAdd = old;   // it still runs, a learner now: it becomes a voter again before the next episode
            return;
        }
        killed.add(slot);
        sleepUntil(after(e.holdMillis()), deadline);
        act("start " + fresh + " in r" + slot + "'s place, a learner (not waiting for it)",
                () -> target.relaunchAs(slot, fresh));
        killed.remove(slot);
        replacing = -1;
        lastFaultEnd = clock.nanos();
        long until = Math.min(deadline, after(ADMISSION_MILLIS));
        while (!target.serves(slot)) {
            if (!sleepUntil(Math.min(until, after(500)), deadline) || clock.nanos() >= until) {
                log(fresh + " did not serve within " + ADMISSION_MILLIS / 1000 + " s or before the end: not added yet");
                return;
            }
        }
        if (changeVoters("add " + fresh, deadline)) {
            pendingAdd = null;
        }
    }

    /** Whether the voters already show {@code change} ({@code add rX}: rX votes; {@code remove rX}: it does not). */
    private boolean done(String change) {
        try {
            String[] c = change.split(" ");
            java.util.List<String> voters = java.util.List.of(target.voters().split(","));
            return "add".equals(c[0]) == voters.contains(c[1]);
        } catch (Exception e) {
            return false;   // nobody answered: not known
        }
    }

    /** Adds {@link #pendingAdd} to the voters once it is in the view (endAll: the run's checks want the group whole). */
    private void finishReplacement() {
        String add = "add " + pendingAdd;
        long until = clock.nanos() + TimeUnit.MILLISECONDS.toNanos(ADMISSION_MILLIS);
        while (true) {
            try {
                log("members " + add + " (a replacement cut short by the end): committed, voters "
                        + target.changeVoters(add));
                pendingAdd = null;
                return;
            } catch (Exception e) {
                String why = String.valueOf(e.getMessage());
                if (done(add)) {
                    log("members " + add + " (a replacement cut short by the end): committed (" + why + ")");
                    pendingAdd = null;
                    return;
                }
                boolean wait = why.contains("not in the view") || why.contains("leader") || why.contains("in flight")
                        || why.contains("did not answer") || why.contains("not known committed");
                if (!wait || interrupted || clock.nanos() >= until) {
                    log("members " + add + " (a replacement cut short by the end): not done: " + why);
                    return;
                }
                try {
                    clock.sleep(500);
                } catch (InterruptedException ie) {
                    interrupted = true;
                }
            }
        }
    }

    /**
     * Asks the leader for {@code change}, again while no leader is known or another change is in flight (at most 30 s,
     * not past the deadline). Logs the outcome; true if it was committed.
     */
    private boolean changeVoters(String change, long deadline) throws InterruptedException {
        long until = Math.min(deadline, after(30_000));
        while (true) {
            try {
                String voters = target.changeVoters(change);
                log("members " + change + ": committed, voters " + voters);
                return true;
            } catch (InterruptedException ie) {
                throw ie;
            } catch (Exception ex) {
                String why = String.valueOf(ex.getMessage());
                if (done(change)) {   // committed all the same (an answer lost or late, or a retry of a committed one)
                    log("members " + change + ": committed (" + why + ")");
                    return true;
                }
                boolean retry = why.contains("leader") || why.contains("in flight") || why.contains("did not answer")
                        || why.contains("not known committed") || why.contains("not in the view");
                if (!retry || !sleepUntil(Math.min(until, after(500)), deadline) || clock.nanos() >= until) {
                    log("members " + change + ": not done: " + why);
                    return false;
                }
            }
        }
    }

    /**
     * Issue 39's scenario: C ({@code replica}) down while A ({@code second}) and B commit; A and B killed; a byte of
     * what A logged meanwhile (which only A and B hold) flipped; A and C restarted without B, which comes back later.
     * A and C must not serve a history without the damaged entry: they wait for B's copy (the run's checks say whether
     * anything answered was lost).
     */
    private void ctrl(Episode e, long deadline) throws InterruptedException {
        int c = e.replica();
        int a = e.second();
        int b = e.third();
        if (!inject("kill -9 r" + c, () -> target.kill(c))) {
            return;
        }
        killed.add(c);
        DiskDamage.Mark[] mark = new DiskDamage.Mark[1];
        act("mark how far r" + a + "'s log reaches", () -> mark[0] = target.markLog(a));
        sleepUntil(after(e.holdMillis()), deadline);
        for (int v : new int[] {a, b}) {
            if (inject("kill -9 r" + v, () -> target.kill(v))) {
                killed.add(v);
            }
        }
        if (mark[0] != null && killed.contains(a)) {
            damage(a, mark[0], e.lossPercent(), 0);
        }
        restart(a);
        restart(c);
        sleepUntil(after(e.secondHoldMillis()), deadline);
        boolean served = target.serves(a) || target.serves(c);
        log("r" + a + " and r" + c + " without r" + b + ": " + (served ? "they serve" : "they do not serve"));
        restart(b);
    }

    /**
     * 2 or 3 replicas lose power at once ({@link PowerLoss}); {@code e.replica()}'s batch synced last is damaged. The
     * others restart after {@code holdMillis}, except the one of them that holds that batch intact (the most advanced
     * log), which restarts {@code secondHoldMillis} later: the restarted ones must wait for it, or prove the batch was
     * never committed.
     */
    private void powerLoss(Episode e, long deadline) throws InterruptedException {
        int damaged = e.replica();
        List<Integer> victims = new ArrayList<>();
        for (int i = 0; i < target.size(); i++) {
            if (e.lossPercent() == 3 || i == damaged || i == e.second()) {
                victims.add(i);
            }
        }
        for (int v : victims) {
            if (inject("kill -9 r" + v + " (power loss)", () -> target.kill(v))) {
                killed.add(v);
            }
        }
        long[] synced = new long[target.size()];
        java.util.Arrays.fill(synced, -1);
        for (int v : victims) {
            if (!killed.contains(v)) {
                continue;
            }
            PowerLoss.Result[] r = new PowerLoss.Result[1];
            if (act("power loss on r" + v + "'s log", () -> r[0] = target.powerLoss(v, v == damaged,
                    e.gapMillis() * 31 + v))) {
                synced[v] = r[0].synced();
                log("r" + v + "'s log: " + r[0].did());
            }
        }
        int holder = -1;
        for (int v : victims) {
            if (v != damaged && killed.contains(v) && synced[v] >= synced[damaged]
                    && (holder < 0 || synced[v] > synced[holder])) {
                holder = v;
            }
        }
        sleepUntil(after(e.holdMillis()), deadline);
        for (int v : victims) {
            if (v != holder && killed.contains(v)) {
                restart(v);
            }
        }
        if (holder >= 0) {
            sleepUntil(after(e.secondHoldMillis()), deadline);
            log("r" + holder + " holds r" + damaged + "'s batch synced last intact (synced to " + synced[holder]
                    + " against " + synced[damaged] + "): restarted last");
            restart(holder);
        }
    }

    /**
     * One replica's log volume shrunk to what it holds and a little more: it stops when a write fails. Once it has (or
     * after {@code holdMillis}), the volume grows back and the replica is started again.
     */
    private void diskFull(Episode e, long deadline) throws InterruptedException {
        int r = e.replica();
        if (!inject("fill r" + r + "'s log volume", () -> target.fillVolume(r))) {
            return;
        }
        killed.add(r);   // its stop is the fault's doing
        long until = Math.min(after(e.holdMillis()), deadline);
        while (target.running(r) && clock.nanos() < until) {
            sleepUntil(after(250), until);
        }
        boolean stopped = !target.running(r);
        log("r" + r + (stopped ? " stopped: its log volume is full" : " still runs: its log volume did not fill"));
        act("grow r" + r + "'s log volume", () -> target.growVolume(r));
        if (stopped) {
            restart(r);
        } else {
            killed.remove(r);
            lastFaultEnd = clock.nanos();
        }
    }

    /** Damages stopped replica {@code r}'s log ({@link NemesisTarget#damageLog}) and logs what was done. */
    private void damage(int r, DiskDamage.Mark since, int percent, int tear) {
        String[] did = new String[1];
        if (act("damage r" + r + "'s log", () -> did[0] = target.damageLog(r, since, percent, tear))) {
            log("r" + r + "'s log: " + did[0]);
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

    /**
     * Ends every fault still in place; restarts every replica not running; adds a replacement cut short by the
     * deadline to the voters. Sleeps only for that: until the new replica is in the view, at most
     * {@link #ADMISSION_MILLIS} (once, without waiting, when interrupted).
     */
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
                if (r == replacing && pendingAdd != null) {   // cut short between the kill and the new start
                    String fresh = pendingAdd;
                    int place = r;
                    act("start " + fresh + " in r" + r + "'s place, a learner (a replacement cut short)",
                            () -> target.relaunchAs(place, fresh));
                    killed.remove(r);
                    replacing = -1;
                    lastFaultEnd = clock.nanos();
                } else {
                    restart(r);
                }
            }
        }
        if (pendingAdd != null) {
            finishReplacement();
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
        while (true) {
            boolean all = true;
            for (int r = 0; r < target.size() && all; r++) {
                if (!target.running(r) && !killed.contains(r)) {
                    noteUnexpectedExit(r);
                    restart(r);
                }
                all = target.serves(r);
            }
            servingSince = all ? (servingSince < 0 ? clock.nanos() : servingSince) : -1;
            if (all && clock.nanos() - servingSince >= TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS)) {
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
        servingSince = -1;
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

    /** When the last fault ended ({@link NemesisClock#nanos()}): the last heal, SIGCONT, restart or network restore. */
    /**
     * When the nemesis's own probes, waiting to admit the next episode, began to find every replica serving on every
     * probe up to their last one; -1 if their last probe found one not serving. A run whose last episode ends just
     * before the deadline is still waiting then: the recovery began before the final check could look.
     */
    public long servingSince() {
        return servingSince;
    }

    public long lastFaultEnd() {
        return lastFaultEnd;
    }

    /** The episodes played, in order. */
    public List<Episode> played() {
        return List.copyOf(done);
    }
}
