package org.fts.goa;

import org.fts.goa.intake.LoadIndex;
import org.fts.goa.intake.Cast;
import org.fts.goa.intake.CastPath;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.ReplyCache;
import org.fts.goa.intake.Standing;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fts.batching.BatchPolicy;
import org.fts.batching.Batcher;
import org.fts.batching.Clock;
import org.fts.gc.FailStop;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.omg.PortableServer.Servant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's request path, assembled from its stages (docs/goa.md): {@link CastPath} (doorway, cast, the
 * foreground threads' waits), the {@link Batcher} (batches into the total order), {@link DeliveryRouter}
 * (delivered casts to their stage), {@link Execution} on the {@link ExecutionLanes}, the {@link ReplyCache},
 * the replica's {@link Standing} and its {@link StateTransfer}. Built whole before the channel joins: nothing
 * here is ever half wired.
 */
final class ReplicaEngine implements StateTransfer.Host {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaEngine.class);

    private final String self;
    private final MemberId member;
    private final GroupChannel channel;
    private final Map<ObjectKey, Servant> objects;
    private final ReplyCache cache;
    private final Membership membership;
    private final Batcher batcher;
    private final CastPath castPath;
    private final ExecutionLanes lanes;
    private final Standing standing;
    private final StateTransfer transfer;
    private final DeliveryRouter router;
    private final Backups backups;
    private final Replay replay;
    private volatile ReadPath reads;
    private final ExecutionRecord record = new ExecutionRecord();
    /** How the requests its listeners took ended at the intake (shared by both listeners' intakes). */
    private final org.fts.goa.intake.RequestOutcomes outcomes = new org.fts.goa.intake.RequestOutcomes();
    /** How often a serving replica casts its clock offset for the group's calendar (and once as it begins to serve). */
    private static final long CALENDAR_EVERY_SECONDS = 60;
    private final java.util.concurrent.ScheduledExecutorService calendarTimer;
    private final DivergenceCheck divergence;
    private final GroupConfig group;
    /** Null unless fts.outcalls=ordered. */
    private volatile Outcalls outcallsHere;
    /** The objects, the reply cache, the group reference and the execution record: what a snapshot holds. */
    private final Snapshot.Parts state;
    /** Opened when the application activated its objects (deliveries wait for it when the group layer logs). */
    private final java.util.concurrent.CountDownLatch activation = new java.util.concurrent.CountDownLatch(1);

    /**
     * @param channel the replica's channel, not joined yet: join it with {@link #listener()}
     * @param objects the replica's servants by object id (filled by the application before activation)
     * @param logged the group layer logs ({@code fts.durability=log}): a restarted replica's first deliveries
     *               replay its log, so nothing executes before the application activated its objects
     */
    ReplicaEngine(GoaConfig config, GroupConfig group, MemberId member, GroupChannel channel, BatchPolicy policy, boolean longDoorway,
                  Replay replay, ObjectTable objects, Membership membership, boolean logged, int divergenceWindow,
                  boolean ownLane) {
        this.self = config.replicaId();
        this.group = group;
        this.member = member;
        this.channel = channel;
        this.objects = objects.servants();
        this.membership = membership;
        this.cache = new ReplyCache(config.cacheMaxEntries(), config.cacheTtl().toMillis(),
                config.cacheMargin().toMillis());
        this.batcher = new Batcher(policy, Clock.SYSTEM, channel::abcast,
                FailStop.threads("fts-batch-timer-" + self));
        batcher.speak(org.fts.gc.WireVersion.lowest());   // until its state says the group's (docs/upgrades.md)
        this.castPath = new CastPath(batcher, longDoorway);
        this.lanes = new ExecutionLanes(self, config.backgroundThreads(), channel, ownLane);
        this.standing = new Standing(channel::voters);
        this.replay = replay;
        this.transfer = new StateTransfer(this, Math.max(250, config.stateTimeout().toMillis() / 4), self);
        boolean oneLane = config.backgroundThreads() == 1;
        this.divergence = new DivergenceCheck(member.name(), oneLane ? divergenceWindow : 0,
                () -> channel.voters().n() > 0 ? channel.voters().n() : config.groupSize(), castPath::castControl,
                () -> {
                    org.fts.gc.Voters voters = channel.voters();
                    return channel.view().members().stream().filter(m -> voters.votes(m.replica()))
                            .map(MemberId::name).collect(java.util.stream.Collectors.toSet());
                });
        this.state = new Snapshot.Parts(objects, cache, membership, record);
        Execution execution = new Execution(self, config.group(), objects, replay, cache, this.objects, lanes, castPath, record, divergence,
                oneLane);
        this.backups = new Backups(self, member, config.group(), channel, castPath, lanes, state);
        this.router = new DeliveryRouter(self, member, channel, batcher, standing, castPath, execution, lanes,
                transfer, membership, logged ? activation : null, this, backups, record,
                // behind what is already queued for delivery (a log's replay): the estimate is then current
                this::castClockOffsetLater);
        this.calendarTimer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                FailStop.threads("fts-calendar-" + self));
        calendarTimer.scheduleWithFixedDelay(() -> {
            if (standing.notServing() == null) {
                castClockOffset();
            }
        }, CALENDAR_EVERY_SECONDS, CALENDAR_EVERY_SECONDS, TimeUnit.SECONDS);
    }

    /** Compares this replica's settings with the group's as it starts; the router hands it their messages. */
    SettingsCheck settingsCheck(AgreedSettings mine) {
        SettingsCheck c = new SettingsCheck(self, mine, channel, standing);
        router.settings(c);
        return c;
    }

    /** Publishes this build's wire versions, refuses to join a group it cannot speak to, moves the group up. */
    WireCheck wireCheck() {
        return new WireCheck(self, channel, standing, record, castPath::castControl);
    }

    /** How the requests taken here ended at the intake. */
    org.fts.goa.intake.RequestOutcomes outcomes() {
        return outcomes;
    }

    /** The group's wire version (docs/upgrades.md). */
    int wireVersion() {
        return record.wire();
    }

    /** What the channel delivers to. */
    GroupListener listener() {
        return router;
    }

    /** Backup and restore through the total order ({@code fts backup}, {@code fts restore}). */
    Backups backups() {
        return backups;
    }

    StateTransfer transfer() {
        return transfer;
    }

    CastPath castPath() {
        return castPath;
    }

    ReplyCache cache() {
        return cache;
    }

    Standing standing() {
        return standing;
    }

    Batcher batcher() {
        return batcher;
    }

    /**
     * The path of declared reads (docs/reads.md), executed here after the channel's read barrier; with {@code check},
     * each one compares the state's digest before and after ({@code fts.reads.check}).
     */
    ReadPath readPath(ReadOperations declared, boolean check) {
        java.util.function.Supplier<String> digest = !check ? null : () -> {
            try {
                return Snapshot.digest(Snapshot.take(state));
            } catch (Snapshot.StateException e) {
                throw new IllegalStateException("cannot take the state to check a read: " + e.getMessage(), e);
            }
        };
        reads = new ReadPath(self, channel, replay, objects, lanes, standing, castPath, declared, digest);
        return reads;
    }

    /** Declared reads executed here after a read barrier, and those whose barrier was refused (ordered instead). */
    long[] readCounts() {
        ReadPath r = reads;
        return r == null ? new long[2] : r.counts();
    }

    /** Casts this replica's endpoint into the total order, so every replica adds it to the group reference. */
    void announce(String endpoint) {
        castPath.castControl(new Cast.Announce(self, endpoint));
    }

    /**
     * The application activated its objects: fetch the state if this replica needs it, and wait (up to
     * {@code waitMillis}) until it holds a current state, or learns that the group has no primary yet (then it
     * serves once one forms).
     *
     * @return null when it may go on, else why not
     */
    String activated(long waitMillis) {
        activation.countDown();
        channel.onDeliveryThread(router::activated);   // the standing changes on the delivery thread only
        transfer.ready();
        try {
            standing.started().get(waitMillis, TimeUnit.MILLISECONDS);
            return null;
        } catch (java.util.concurrent.TimeoutException e) {
            return "did not obtain the group's state within " + waitMillis + " ms (fts.state.timeout); last: "
                    + transfer.lastRefusal();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while obtaining the group's state";
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause().toString();
        }
    }

    /** Why this replica refused to serve (its settings differ from the group's: a ConfigException), or null. */
    Throwable refusal() {
        CompletableFuture<Void> started = standing.started();
        if (!started.isCompletedExceptionally()) {
            return null;
        }
        try {
            started.getNow(null);
            return null;
        } catch (java.util.concurrent.CompletionException e) {
            return e.getCause();
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    /** SHA-256 of this replica's state at a cut of its execution (tests and tools compare replicas). */
    String stateDigest(long waitMillis) throws Exception {
        CompletableFuture<String> digest = new CompletableFuture<>();
        lanes.atCut(() -> {
            try {
                digest.complete(Snapshot.digest(Snapshot.take(state)));
            } catch (Snapshot.StateException | RuntimeException e) {
                digest.completeExceptionally(e);
            }
        });
        return digest.get(waitMillis, TimeUnit.MILLISECONDS);
    }

    /** Sends what the batcher still holds; call while the channel is open, before {@link #shutdown()}. */
    void flush() {
        batcher.close();
        LOG.info("{}: {}", self, batcher.stats().dump());
    }

    /** The group layer's configuration: N, and who votes ({@code fts.group.voters}). */
    GroupConfig group() {
        return group;
    }

    /** Ordered outcalls' outcomes go to {@code o} from now on ({@code fts.outcalls=ordered}). */
    void outcalls(Outcalls o) {
        outcallsHere = o;
        router.outcalls(o, divergence::stale);
    }

    /** {@link #castClockOffset} once what is queued for delivery now (a log's replay) was delivered. */
    private void castClockOffsetLater() {
        try {
            channel.onDeliveryThread(this::castClockOffset);
        } catch (RuntimeException e) {
            LOG.debug("{}: clock offset not cast: {}", self, e.toString());
        }
    }

    /** Casts this replica's clock offset from the group's time ({@link GroupCalendar}). */
    private void castClockOffset() {
        try {
            if (record.unknown()) {   // a state from before positions: the group aligns them here
                castPath.castControl(new Cast.PositionBase(self));
            }
            castPath.castControl(new Cast.ClockOffset(self, System.currentTimeMillis() - cache.groupTimeEstimate()));
        } catch (RuntimeException e) {
            LOG.debug("{}: clock offset not cast: {}", self, e.toString());
        }
    }

    /** Stops executing; call once the channel is closed (no more deliveries). */
    void shutdown() {
        calendarTimer.shutdownNow();
        transfer.shutdown();
        lanes.shutdown();
        castPath.failAll(new IllegalStateException("adaptor destroyed"));
    }

    // ------------------------------------------------------------------ StateTransfer.Host

    @Override
    public MemberId member() {
        return member;
    }

    @Override
    public void cast(Cast.StateMarker marker) {
        castPath.castControl(marker);
    }

    @Override
    public void send(MemberId to, byte[] message) {
        try {
            channel.send(to, message);
        } catch (RuntimeException e) {
            LOG.info("{}: message to {} not sent: {}", self, to, e.getMessage());
        }
    }

    @Override
    public void atCut(Runnable action) {
        lanes.atCut(action);
    }

    @Override
    public String cannotProvide() {
        if (!standing.current()) {
            return "its own state is not current";
        }
        return standing.epochOpen() ? null : "its view's epoch is not open";
    }

    @Override
    public boolean seenServing(MemberId m) {
        org.fts.gc.Whiteboard.Entry e = channel.whiteboard().entries().get(m);
        return e != null && e.value(LoadIndex.SERVING) == 1;
    }

    @Override
    public byte[] snapshot() throws Snapshot.StateException {
        return Snapshot.take(state);
    }

    @Override
    public void install(byte[] snapshot, List<Cast> buffered) throws Snapshot.StateException {
        CompletableFuture<Snapshot.StateException> done = new CompletableFuture<>();
        lanes.atCut(() -> {   // nothing executes here while not current; this waits for what already was queued
            try {
                Snapshot.install(snapshot, state);
                divergence.reset();
                Outcalls o = outcallsHere;
                if (o != null) {   // the buffered casts execute on the installed state: their calls are real ones
                    o.stale(null);
                }
                done.complete(null);
            } catch (Snapshot.StateException e) {
                done.complete(e);
            } catch (RuntimeException e) {
                done.complete(new Snapshot.StateException("installing failed: " + e));
            }
        });
        Snapshot.StateException failed = done.join();
        if (failed instanceof Snapshot.WireException w) {
            router.cannotFollow(w.version, "the group's state is at wire version " + w.version);   // it stops here
        }
        if (failed != null) {
            throw failed;
        }
        router.actOnBuffered(buffered);
    }
}
