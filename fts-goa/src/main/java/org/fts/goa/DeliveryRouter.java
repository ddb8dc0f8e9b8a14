package org.fts.goa;

import org.fts.goa.intake.Cast;
import org.fts.goa.intake.CastPath;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.Standing;
import java.util.ArrayList;
import java.util.List;

import org.fts.batching.BatchCodec;
import org.fts.batching.Batcher;
import org.fts.gc.Checkpoint;
import org.fts.gc.Epoch;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.WireVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 7, on the group's delivery thread: takes every delivered batch apart and routes each {@link Cast}:
 * invocations to {@link Execution}, endpoint announcements to the group reference (at a cut of execution), and an
 * operator's backups and restores to {@link Backups}, while the replica's state is current; both to the state transfer's buffer while it awaits a snapshot, and
 * nowhere before (the snapshot will hold them); markers to the {@link StateTransfer}. Views, epochs and "not
 * primary" change the replica's {@link Standing}, which fails the requests that wait here when the replica stops
 * serving. With one execution lane ({@code fts.pool.background=1}, the default) the lane is this thread, so servant
 * code runs here too; with more, it runs on the lanes' threads ({@link ExecutionLanes}).
 */
final class DeliveryRouter implements GroupListener {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryRouter.class);

    private final String self;
    private final MemberId member;
    private final GroupChannel channel;
    private final Batcher batcher;
    private final Standing standing;
    private final CastPath castPath;
    private final Execution execution;
    private final ExecutionLanes lanes;
    private final StateTransfer transfer;
    /** Set once, before the channel joins. */
    private volatile SettingsCheck settings;
    private final Membership membership;
    /** Null, or opened once the application activated its objects: the first delivery waits for it. */
    private final java.util.concurrent.CountDownLatch activation;
    /** Takes and installs the replica's state (checkpoints, and the state a restart goes on from). */
    private final StateTransfer.Host states;
    private final Backups backups;
    /** The group's wire version, with the position and the calendar: what the batcher speaks follows it. */
    private final ExecutionRecord record;
    /** Runs on the delivery thread when this replica begins to serve (again). */
    private final Runnable servingBegan;
    private boolean serving;
    /** Whether it found that its build cannot speak the group's wire version (delivery thread only). */
    private boolean cannotFollow;
    /**
     * The group's wire version as far as delivered here (delivery thread): the record follows at a cut of the lanes,
     * so that a state taken at a cut names the version of its position.
     */
    private int deliveredWire = WireVersion.FIRST;
    /** Null unless fts.outcalls=ordered. */
    private volatile Outcalls outcalls;
    private volatile java.util.function.Consumer<Boolean> outcallsStale = b -> { };

    DeliveryRouter(String self, MemberId member, GroupChannel channel, Batcher batcher, Standing standing,
                   CastPath castPath, Execution execution, ExecutionLanes lanes, StateTransfer transfer,
                   Membership membership, java.util.concurrent.CountDownLatch activation, StateTransfer.Host states,
                   Backups backups, ExecutionRecord record, Runnable servingBegan) {
        this.backups = backups;
        this.record = record;
        this.servingBegan = servingBegan;
        this.activation = activation;
        this.states = states;
        this.self = self;
        this.member = member;
        this.channel = channel;
        this.batcher = batcher;
        this.standing = standing;
        this.castPath = castPath;
        this.execution = execution;
        this.lanes = lanes;
        this.transfer = transfer;
        this.membership = membership;
    }

    @Override
    public void deliver(MemberId sender, byte[] payload) {
        if (cannotFollow) {
            return;   // it stops (a test kit's instrumentation may keep the JVM): nothing more executes here
        }
        if (activation != null && activation.getCount() > 0) {
            awaitActivation();
        }
        List<Cast> casts = new ArrayList<>();
        try {
            for (byte[] m : BatchCodec.decode(payload, 0, WireVersion.lowest(), WireVersion.highest())) {
                casts.add(Cast.decode(m));
            }
        } catch (BatchCodec.VersionException e) {
            // Not a damaged batch that every replica drops alike: the others execute it. This one cannot follow.
            cannotFollow(e.version(), "a batch from " + sender + " is of wire version " + e.version());
            return;
        } catch (RuntimeException e) {
            // Every replica receives the same bytes and drops them alike, whole: no divergence.
            LOG.error("{}: dropped an undecodable batch from {}: {}", self, sender, e.getMessage());
            casts.clear();
        }
        if (sender.equals(member)) {
            batcher.ownBatchDelivered();
        }
        for (Cast c : casts) {
            if (cannotFollow) {
                return;   // the rest of the batch is after a position this replica cannot follow
            }
            if (c instanceof Cast.StateMarker m) {
                marker(m);
            } else if (standing.current()) {
                act(c);
            } else if (!transfer.buffered(c) && c instanceof Cast.Invocation i && self.equals(i.request().origin())) {
                // Not executed here: the state this replica fetches will hold it. Its client learns the outcome
                // is unknown and retries elsewhere (exactly once: the reply cache).
                castPath.notExecuted(i.request().id(),
                        new IllegalStateException("replica " + self + " " + standing.notServing()));
            }
        }
    }

    /**
     * A replica whose group layer logs replays its log as its first deliveries, before the application may have
     * activated its objects: executed then, a request would find no servant where the others found one. The
     * delivery thread waits (the group goes on; deliveries queue here), saying so every 10 s.
     */
    private void awaitActivation() {
        try {
            while (!activation.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                LOG.warn("{}: deliveries wait for the application to activate its objects (POA manager activate)",
                        self);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The group layer's log asks for the replica's state at this position: taken at a cut of the execution lanes
     * (everything delivered before executed, nothing after), as for a state transfer.
     */
    @Override
    public void checkpointDue(Checkpoint checkpoint) {
        if (cannotFollow) {
            checkpoint.skip("it cannot follow the group's wire version");
            return;
        }
        if (!standing.current()) {
            checkpoint.skip("its state is not current");
            return;
        }
        lanes.atCut(() -> {
            byte[] state;
            try {
                state = states.snapshot();
            } catch (Snapshot.StateException | RuntimeException e) {
                LOG.error("{}: cannot checkpoint its state at {}: {}", self, checkpoint.position(), e.getMessage());
                checkpoint.skip(String.valueOf(e.getMessage()));
                return;
            }
            checkpoint.save(state);
        });
    }

    /** A restarted replica's state, from its log's checkpoint: installed before any delivery, once activated. */
    @Override
    public void restore(long position, byte[] state) {
        if (activation != null && activation.getCount() > 0) {
            awaitActivation();
        }
        try {
            states.install(state, List.of());
        } catch (Snapshot.WireException e) {
            cannotFollow(e.version, "its checkpoint at " + position + " is at wire version " + e.version);
            return;
        } catch (Snapshot.StateException e) {
            throw new IllegalStateException(self + ": its checkpoint at " + position + " cannot be installed: "
                    + e.getMessage(), e);
        }
        deliveredWire = record.wire();
        batcher.speak(deliveredWire);
        LOG.info("{}: restored its state from its checkpoint at {} ({} bytes); its log replays from there", self,
                position, state.length);
    }

    /** A delivered invocation or announcement, at a replica whose state is current. */
    private void act(Cast c) {
        if (c instanceof Cast.Invocation i) {
            execution.submit(i.request());
        } else if (c instanceof Cast.Backup b) {
            backups.delivered(b);
        } else if (c instanceof Cast.Restore r) {
            backups.delivered(r);
        } else if (c instanceof Cast.ClockOffset o) {
            execution.delivered(o);
        } else if (c instanceof Cast.ReplyDigest d) {
            execution.delivered(d);
        } else if (c instanceof Cast.PositionBase b) {
            execution.delivered(b);
        } else if (c instanceof Cast.Outcome o) {
            Outcalls to = outcalls;
            if (to != null) {
                to.delivered(o);   // here, not behind the lane: the lane waits for it
            }
        } else if (c instanceof Cast.WireUpgrade w) {
            upgrade(w.version());
        } else if (c instanceof Cast.Announce a) {
            lanes.atCut(() -> {
                if (membership.add(a.endpoint())) {
                    LOG.info("{}: replica {} at {} joined the group reference: {}", self, a.replica(),
                            a.endpoint(), membership.current());
                }
            });
        }
    }

    /**
     * The group moves to wire version {@code version} here (never down): the batches this replica sends from now on
     * are of that version. A replica whose build does not speak it cannot follow the group.
     */
    private void upgrade(int version) {
        if (version <= deliveredWire) {
            return;
        }
        if (!WireVersion.speaks(version)) {
            cannotFollow(version, "the group moved to wire version " + version);
            return;
        }
        LOG.info("{}: the group speaks wire version {} from here (was {}; this build speaks {})", self, version,
                deliveredWire, WireVersion.describe());
        deliveredWire = version;
        batcher.speak(version);
        lanes.atCut(() -> record.wire(version));   // in the state from this position on, as every record change
    }

    /**
     * This replica's build does not speak the group's wire version {@code version}: it stops at once, on the delivery
     * thread, before anything delivered after this position executes here, with exit status 2 (starting it again
     * changes nothing), naming both versions. Its start, if it has not returned, fails with the same words.
     */
    void cannotFollow(int version, String what) {
        if (cannotFollow) {
            return;
        }
        cannotFollow = true;
        String why = "replica " + self + " cannot follow its group: " + what + ", and this build speaks "
                + WireVersion.describe() + ". Upgrade it to a release that speaks " + version + " (docs/upgrades.md)";
        standing.refuse(new org.fts.config.ConfigException("wire version", "differs from the group's: " + why));
        org.fts.gc.FailStop.refuse(new IllegalStateException(why));
    }

    private void marker(Cast.StateMarker m) {
        boolean installedNow;
        try {
            installedNow = transfer.onMarker(m);
        } catch (RuntimeException e) {
            // A local failure (e.g. the lanes refuse work while shutting down): the rest of the batch still
            // goes where it goes at every other replica.
            LOG.error("{}: state marker {} failed here: {}", self, m, e.toString(), e);
            return;
        }
        if (installedNow) {
            installed();
        }
    }

    @Override
    public void receive(MemberId sender, byte[] payload) {
        Direct m;
        try {
            m = Direct.read(payload);
        } catch (IllegalArgumentException e) {
            LOG.warn("{}: dropped a malformed message from {}: {}", self, sender, e.getMessage());
            return;
        }
        if (m instanceof Direct.Settings theirs) {
            SettingsCheck c = settings;
            if (c != null) {
                c.received(sender, theirs);
            }
        } else if (transfer.onDirect(sender, m)) {
            installed();
        }
    }

    /** Ordered outcalls go to {@code o}; {@code stale} says when their executions may end on a made-up outcome. */
    void outcalls(Outcalls o, java.util.function.Consumer<Boolean> stale) {
        outcallsStale = stale;
        outcalls = o;
    }

    void settings(SettingsCheck check) {
        settings = check;
    }

    @Override
    public void viewAccepted(View v) {
        standing.onView(v);
        LOG.info("{}: view {}{}", self, v, standing.notServing() == null ? "" : " (it " + standing.notServing() + ")");
        standingChanged(false, null);
    }

    @Override
    public void epochOpened(Epoch e) {
        if (e.gap()) {
            batcher.forgetInFlight();   // what it cast before the gap is not given back to it
        }
        if (standing.onEpoch(e)) {
            LOG.warn("{}: its state misses part of the group's history (epoch {}); it fetches the group's state",
                    self, e.id());
        }
        LOG.info("{}: epoch {} open ({} members, state {})", self, e.id(), e.members().size(),
                standing.current() ? "current" : "to fetch" + (e.provider() == null ? "" : " from " + e.provider()));
        standingChanged(e.gap(), e.provider());
    }

    /**
     * This replica executes more slowly than the group orders requests, and its group layer dropped what would
     * have queued past {@code fts.delivery.max_backlog}: it stops serving (its clients fail over), drops what
     * is delivered until its state marker, and fetches the group's state, as after a gap.
     */
    @Override
    public void fellBehind(long missed) {
        batcher.forgetInFlight();   // its own batches among those dropped are not given back to it
        boolean was = standing.fellBehind();
        LOG.warn("{}: its execution fell behind the group ({} broadcasts dropped{}); it fetches the group's state",
                self, missed, was ? "" : ", again while it was fetching it");
        standingChanged(true, null);
    }

    @Override
    public void notPrimary(View v, String reason) {
        standing.onNotPrimary(reason);
        LOG.info("{}: view {} is not primary: {}", self, v.id(), reason);
        standingChanged(false, null);
    }

    /** The application activated its objects (on the delivery thread): the replica may serve. */
    void activated() {
        standing.activated();
        standingChanged(false, null);
    }

    /** After an install: the casts delivered since the state's cut take effect, in order. */
    void actOnBuffered(List<Cast> buffered) {
        deliveredWire = record.wire();   // the installed state's
        for (Cast c : buffered) {
            if (cannotFollow) {
                return;
            }
            act(c);
        }
    }

    /** The state transfer installed the group's state: current, and the group layer counts it as synced. */
    private void installed() {
        batcher.speak(deliveredWire);   // the state's version at its cut, and any upgrade replayed since
        standing.installed();
        channel.synced();   // on the delivery thread: the group layer ignores it if a newer gap is queued
        standingChanged(false, null);
    }

    private void standingChanged(boolean gap, MemberId provider) {
        String why = standing.notServing();
        if (why != null) {
            castPath.failAll(new IllegalStateException("replica " + self + " " + why));
        } else if (!serving) {
            servingBegan.run();
        }
        serving = why == null;
        Outcalls o = outcalls;
        if (o != null) {
            // Its state will be replaced (a gap, or it fell behind): executions until then end their ordered calls on
            // an outcome made up here, at once, as its delivery thread is about to wait for them at the install's cut.
            // First the divergence check learns not to compare them. Before its first epoch (a log replaying) no.
            boolean stale = !standing.current() && standing.everOpened();
            outcallsStale.accept(stale);
            o.stale(stale ? (why != null ? why : "fetches the group's state") : null);
        }
        // With a log, whether the state must be fetched is the first epoch's to say (its log may rebuild it).
        boolean want = !standing.current() && (activation == null || standing.everOpened());
        transfer.onStanding(standing.view(), standing.epochOpen(), want, gap, provider);
    }
}
