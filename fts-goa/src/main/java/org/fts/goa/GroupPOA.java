package org.fts.goa;

import org.fts.goa.intake.LoadIndex;
import org.fts.goa.intake.PlacementFigures;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.Placement;
import org.fts.goa.intake.References;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import org.fts.batching.BatchStats;
import org.fts.batching.BatchingConfig;
import org.fts.config.ConfigKeys;
import org.fts.ft.Ior;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.GroupChannels;
import org.fts.gc.MemberId;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.POAManager;
import org.omg.PortableServer.POAPackage.ObjectAlreadyActive;
import org.omg.PortableServer.POAPackage.ObjectNotActive;
import org.omg.PortableServer.POAPackage.ServantAlreadyActive;
import org.omg.PortableServer.POAPackage.ServantNotActive;
import org.omg.PortableServer.POAPackage.WrongAdapter;
import org.omg.PortableServer.POAPackage.WrongPolicy;
import org.omg.PortableServer.Servant;
import org.omg.PortableServer.ServantActivator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Group Object Adaptor: a {@link POA} whose objects are actively replicated across the replicas of a
 * group. A server changes one line, where it gets its adaptor ({@code GroupPOA.create(orb, props)} instead
 * of {@code resolve_initial_references("RootPOA")}), and keeps using {@code activate_object_with_id},
 * {@code servant_to_reference}, {@code id_to_reference}, {@code the_POAManager().activate()}.
 *
 * <p>Contract for servants (docs/goa.md): deterministic (same state + same request ⇒ same new state and
 * same reply: time and random numbers from {@link RequestContext}, no unordered iteration; docs/determinism.md);
 * the server's own objects activated with the same ids on every replica before the POA manager is activated, later
 * ones only from inside an ordered request (a {@link ServantActivator} makes a joiner's servants for them); IDL
 * skeletons (InvokeHandler), not DSI.
 *
 * <p>What makes no sense for a replicated adaptor fails clearly: {@code activate_object} and
 * {@code create_reference} ({@link WrongPolicy}: ids must be chosen by the application, identical on every
 * replica); child POAs, default servants, adapter activators ({@link NO_IMPLEMENT}, {@link WrongPolicy}).
 */
public final class GroupPOA extends PoaBasics {
    private static final Logger LOG = LoggerFactory.getLogger(GroupPOA.class);

    private final ORB orb;
    private final POA groupPoa;
    private final GoaConfig config;
    private final ObjectTable table;
    private final Map<ObjectKey, Servant> objects;
    private final Membership membership;
    private final GroupChannel channel;
    private final ReplicaEngine engine;
    private final References references;
    private final StatsExport stats;
    private final Placement placement;
    /** Null unless fts.metrics.port is set. */
    private final MetricsEndpoint metrics;
    private final ReplicaStatus status;
    private final NamingBinder naming;
    private final GroupPOAManager manager;
    private final java.util.concurrent.atomic.AtomicBoolean left = new java.util.concurrent.atomic.AtomicBoolean();
    private final Thread leaveOnShutdown;
    private final FrontDispatch frontDoor;   // null: the group's requests come through JacORB's listener
    private final org.fts.goa.frontend.FrontEnd frontEnd;
    /** The own listener's intake budget on JMX (null: none). */
    private final javax.management.ObjectName intakeName;
    /** Null unless fts.outcalls=ordered. */
    private final Outcalls outcalls;

    private GroupPOA(ORB orb, Properties props) throws Exception {
        super(POAHelper.narrow(orb.resolve_initial_references("RootPOA")));
        this.orb = orb;
        PoaGate gate = PoaGate.install(root);   // first: JacORB already takes requests
        org.fts.config.ConfigKeys.checkNames(LOG, props);
        this.config = GoaConfig.from(props, LOG);
        ConfigKeys.validateAndLog(LOG, "batching", props, BatchingConfig.KEYS);
        ConfigKeys.validateAndLog(LOG, "backups", props, Backups.KEYS);
        AdminPasscode passcode = AdminPasscode.load(props);   // an unreadable or short passcode fails the start here
        ConfigKeys.validateAndLog(LOG, "objects", props, ObjectTable.KEYS);
        ConfigKeys.validateAndLog(LOG, "divergence", props, DivergenceCheck.KEYS);
        ConfigKeys.validateAndLog(LOG, "outcalls", props, Outcalls.KEYS);
        boolean orderedOutcalls = Outcalls.MODE.get(props).equals("ordered");
        if (orderedOutcalls && config.backgroundThreads() != 1) {
            throw new org.fts.config.ConfigException(Outcalls.MODE.name(), "is ordered, which needs one execution lane, "
                    + "but fts.pool.background is " + config.backgroundThreads());
        }
        this.table = new ObjectTable(orb, this, ObjectTable.MAX.get(props), config.backgroundThreads() == 1);
        this.objects = table.servants();
        if (config.backgroundThreads() > 1 && DivergenceCheck.WINDOW.get(props) > 0) {
            LOG.info("{} is {}: the divergence check (fts.divergence.window) and RequestContext are off (they need one "
                    + "execution lane)", GoaConfig.POOL_BACKGROUND.name(), config.backgroundThreads());
        }
        StartupChecks.foreground(orb);
        org.fts.goa.giop.GiopGuard.checkInstalled(orb);   // the GIOP message size guard is an ORB property
        // What this replica made so far, undone in reverse order if its start fails: nothing of a replica that did
        // not start outlives it (a POA, a channel in the group, a listening port, an MBean, a thread).
        java.util.ArrayDeque<AutoCloseable> made = new java.util.ArrayDeque<>();
        try {
            this.groupPoa = gate.createGroupPoa(root, config.group());   // early: requests for it wait in the gate
            made.push(() -> groupPoa.destroy(false, false));
            // A restarted replica is a new member: its dead predecessor may still be in the view for a while.
            MemberId member = new MemberId(config.replicaId() + "#" + UUID.randomUUID().toString().substring(0, 6));
            Properties groupProps = StartupChecks.groupProperties(props, config);
            GroupConfig group = GroupConfig.from(groupProps);
            if (!group.votes(config.replicaId())) {
                LOG.info("replica {} is a learner: it takes the state, follows the order and serves its clients, but "
                        + "counts in no majority (fts.group.voters is {})", config.replicaId(), group.voters());
            }
            this.channel = GroupChannels.create(groupProps, member.name());
            made.push(channel::close);
            this.membership = new Membership(config.replicas());
            this.engine = new ReplicaEngine(config, group, member, channel, BatchingConfig.policy(props),
                    BatchingConfig.longDoorway(props), new Replay(orb), table, membership, channel.replaysItsLog(),
                    DivergenceCheck.WINDOW.get(props), orderedOutcalls);
            made.push(engine::shutdown);   // its timers, its sender and its lanes run from here on
            Ior.Iiop local = Ior.Iiop.decode(Ior.parse(orb.object_to_string(groupPoa.create_reference_with_id(
                    new byte[] {0}, "IDL:omg.org/CORBA/Object:1.0"))).profiles().get(0).data());
            StartupChecks.tlsOnlyOrPlain(local);
            this.outcalls = orderedOutcalls ? outcalls(local.host()) : null;
            if (outcalls != null) {
                made.push(outcalls::close);
            }
            this.references = new References(orb, groupPoa, this, membership, config.group(), objects);
            int iiopPort = org.fts.goa.frontend.FrontEnd.PORT.get(props);
            java.util.function.Function<byte[], String[]> interfaces = oid -> {
                Servant s = objects.get(new ObjectKey(oid));   // null: destroyed meanwhile
                return s == null ? new String[0] : s._all_interfaces(this, oid);
            };
            ReadPath reads = engine.readPath(new ReadOperations(props, interfaces), ReadOperations.CHECK.get(props));
            this.frontDoor = iiopPort == 0 ? null
                    : new FrontDispatch(orb, config, objects, engine, membership, references::iogr,
                            groupPoa.the_name(), interfaces, reads);
            this.frontEnd = iiopPort == 0 ? null
                    : org.fts.goa.frontend.FrontEnd.start(local.host(), iiopPort, props, frontDoor,
                            StartupChecks.frontEndTls(orb, local));
            if (frontEnd != null) {
                made.push(frontEnd::close);
            }
            this.intakeName = frontEnd == null ? null : org.fts.goa.giop.IntakeJmx.register(config.group(),
                    config.replicaId(), frontEnd.port(), frontEnd.intake());
            made.push(() -> org.fts.goa.giop.IntakeJmx.unregister(intakeName));
            String endpoint = frontEnd == null ? local.endpoint() : frontEnd.endpoint();
            references.ownEndpoint(frontEnd == null ? null : endpoint);
            this.placement = placement(props, endpoint,
                    engine.settingsCheck(AgreedSettings.of(props, config.groupSize())), engine.wireCheck());
            made.push(placement::close);
            Dispatcher dispatcher = new Dispatcher(orb, config, objects, engine, membership, references::iogr,
                    placement, reads);
            groupPoa.set_servant_manager(new Locator(orb, dispatcher, objects));
            this.manager = new GroupPOAManager(groupPoa.the_POAManager(), this::activated);
            this.stats = new StatsExport(config, engine.batcher().stats());
            made.push(stats);
            this.status = new ReplicaStatus(config, engine, channel, membership, placement);
            made.push(status);
            String namingUrl = GoaConfig.NAMING_URL.get(props);
            String namingContext = GoaConfig.NAMING_CONTEXT.get(props);
            this.naming = namingUrl.isEmpty() ? null : new NamingBinder(orb, namingUrl,
                    namingContext.isEmpty() ? config.group() : namingContext,
                    () -> table.serversOwn().stream().map(ObjectKey::id).toList(),   // not those requests create
                    oid -> orb.string_to_object(references.iogr(oid)), () -> engine.standing().notServing() == null,
                    () -> membership.current().version(), config.replicaId());
            if (naming != null) {
                made.push(naming::close);
            }
            this.leaveOnShutdown = GoaConfig.LEAVE_ON_SHUTDOWN.get(props)
                    ? new Thread(() -> leave("the JVM shuts down"), "fts-leave-" + config.replicaId()) : null;
            this.metrics = MetricsEndpoint.start(props, local.host(), engine.batcher().stats(),
                    io.prometheus.metrics.model.snapshots.Labels.of("group", config.group(), "member",
                            config.replicaId()));   // as org.fts:type=Batching names them
            if (metrics != null) {
                made.push(metrics::close);
            }
            channel.join(config.group(), engine.listener());
            channel.diagnostics().exposeStatus(status::fields);   // fts status, JGroups' probe
            engine.backups().directory(Backups.directory(props));
            engine.backups().passcode(passcode);
            if (!passcode.configured()) {
                LOG.warn("replica {}: fts backup, fts restore and fts members add/remove are accepted from anyone who "
                        + "reaches its probe port; set {} (docs/security.md)", config.replicaId(), AdminPasscode.FILE.name());
            }
            VoterCommands voters = new VoterCommands(config.replicaId(), config.group(), channel);
            voters.passcode(passcode);
            channel.diagnostics().exposeCommands(key -> {   // fts backup, fts restore; fts members
                Map<String, String> answer = engine.backups().command(key);
                return answer != null ? answer : voters.command(key);
            });
            LOG.info("replica {} joined group {} (view {})", config.replicaId(), config.group(), channel.view());
            if (!config.replicas().isEmpty() && !config.replicas().contains(endpoint)) {
                LOG.info("replica {}: endpoint {} is not in fts.replicas; announcing it to the group",
                        config.replicaId(), endpoint);
                engine.announce(endpoint);
            }
            if (leaveOnShutdown != null) {   // last: a start that failed leaves no hook holding what it undid
                Runtime.getRuntime().addShutdownHook(leaveOnShutdown);
            }
        } catch (Exception | Error e) {
            while (!made.isEmpty()) {
                try {
                    made.pop().close();
                } catch (Exception | Error undo) {
                    e.addSuppressed(undo);
                }
            }
            throw e;
        }
    }

    /** {@code fts.outcalls=ordered}: the relay, bound to this ORB's outcall interceptor. */
    private Outcalls outcalls(String host) throws Exception {
        OutcallInterceptor interceptor;
        try {
            interceptor = (OutcallInterceptor) orb.resolve_initial_references(OutcallInterceptor.INITIAL_REFERENCE);
        } catch (org.omg.CORBA.ORBPackage.InvalidName e) {
            throw new org.fts.config.ConfigException(Outcalls.MODE.name(), "is ordered, which needs the ORB initializer "
                    + GroupPOAInitializer.class.getName() + " (org.omg.PortableInterceptor.ORBInitializerClass."
                    + GroupPOAInitializer.class.getName() + "=); the shipped runner sets it");
        }
        Outcalls o = new Outcalls(config.replicaId(), host, engine.castPath()::castControl,
                () -> channel.view().members().stream().map(MemberId::replica).toList(), orb);
        engine.outcalls(o);
        interceptor.bind(o);
        return o;
    }

    /** Stage 0: reads {@code fts.placement} and starts measuring this replica's load (docs/placement.md). */
    private Placement placement(Properties props, String endpoint, SettingsCheck settings, WireCheck wire) {
        ConfigKeys.validateAndLog(LOG, "placement", props, List.of(Placement.MODE));
        boolean byLoad = Placement.MODE.get(props).equals("load");
        if (byLoad && frontEnd != null) {
            LOG.warn("fts.placement=load with the adaptor's own listener (fts.iiop.port): measured to lower calls/s there "
                    + "(connections held at one replica batch better than connections spread); see docs/placement.md");
        }
        LoadIndex load = new LoadIndex(config.replicaId(), channel.whiteboard(),
                () -> membership.current().endpoints().indexOf(endpoint), () -> engine.standing().notServing() == null,
                () -> engine.castPath().inFlight(), byLoad, settings.fingerprint(), wire::published,
                c -> c instanceof org.fts.goa.frontend.ClientConnection own ? own.isOpen() : Jacorb.isOpen(c));
        Placement p;
        try {
            p = new Placement(byLoad, load, channel.whiteboard(), channel.self(), membership, endpoint, orb,
                    references::placed);
        } catch (RuntimeException | Error e) {
            load.close();   // its sampler runs from its construction
            throw e;
        }
        load.afterSample(() -> {
            p.learn();
            settings.check();   // on the same thread, after the fingerprint went out with the sample
            wire.check();
        });
        return p;
    }

    /**
     * The adaptor of this ORB's replica group, configured by the {@code fts.*} keys in {@code props} (pass the
     * properties given to {@code ORB.init}).
     *
     * @throws org.fts.config.ConfigException naming the key, if the configuration is invalid
     */
    public static GroupPOA create(ORB orb, Properties props) {
        try {
            return new GroupPOA(orb, props);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new org.omg.CORBA.INITIALIZE("FTS: cannot create the group object adaptor: " + e);
        }
    }

    /**
     * The adaptor of this ORB's replica group, configured by the {@code fts.*} keys of the ORB's own
     * configuration: {@code jacorb.properties}, {@code orb.properties}, system properties and the properties
     * given to {@code ORB.init}, like every JacORB setting. {@link GroupPOAInitializer} uses it to register
     * the adaptor as {@code resolve_initial_references("GroupPOA")}.
     *
     * @throws org.fts.config.ConfigException naming the key, if the configuration is invalid
     */
    public static GroupPOA create(ORB orb) {
        return create(orb, Jacorb.ftsSettings(orb));
    }

    /** This replica's log figures ({@link org.fts.gc.GroupChannel#logFigures()}), or null without a log. */
    public org.fts.gc.LogFigures logFigures() {
        return channel.diagnostics().logFigures();
    }

    /** The batching statistics of this replica (also over JMX as org.fts:type=Batching). */
    public BatchStats batchStats() {
        return engine.batcher().stats();
    }

    /** The version of this group's object references (FT-CORBA object_group_ref_version), and its endpoints. */
    public GroupReference referenceVersion() {
        Membership.Snapshot s = membership.current();
        return new GroupReference(s.version(), s.endpoints());
    }

    /**
     * SHA-256 of this replica's whole state (objects, reply cache, group reference), taken between two
     * executions: replicas at the same position of the order give the same digest (for tests and tools).
     */
    public String stateDigest() {
        try {
            return engine.stateDigest(10_000);
        } catch (Exception e) {
            throw new org.omg.CORBA.INTERNAL("FTS: cannot compute the state digest: " + e);
        }
    }

    /** This replica's load and placement (docs/placement.md); {@link PlacementFigures#format} makes it one line. */
    public PlacementFigures load() {
        return placement.figures();
    }

    /** Null when this replica executes and answers requests; otherwise why it does not. */
    public String notServing() {
        return engine.standing().notServing();
    }

    /**
     * Waits until this replica serves (it is in a primary view and holds the group's state), at most
     * {@code timeout}; returns whether it does. {@code the_POAManager().activate()} returns earlier when the
     * group has no primary yet (the first replicas to start).
     */
    public boolean awaitServing(java.time.Duration timeout) throws InterruptedException {
        return engine.standing().awaitServing(timeout.toMillis());
    }

    // ------------------------------------------------------------------ objects and references

    /**
     * Activates {@code servant} under {@code oid} in the group: before the POA manager is activated, the server's own
     * objects (every replica activates the same); once the group serves, only from inside an ordered request (a
     * servant's operation: every replica executes it at the same position), else {@code BAD_INV_ORDER}. Past
     * {@code fts.objects.max}, {@code NO_RESOURCES}.
     */
    @Override
    public void activate_object_with_id(byte[] oid, Servant servant) throws ServantAlreadyActive, ObjectAlreadyActive {
        table.activate(oid, servant);
    }

    @Override
    public byte[] activate_object(Servant servant) throws WrongPolicy {
        throw new WrongPolicy();   // ids must be the application's, the same on every replica
    }

    /**
     * Destroys object {@code oid} in the group: once the group serves, only from inside an ordered request, else
     * {@code BAD_INV_ORDER}. Every replica then answers {@code OBJECT_NOT_EXIST} to it, also to a retry.
     */
    @Override
    public void deactivate_object(byte[] oid) throws ObjectNotActive {
        table.deactivate(oid);
    }

    /**
     * The server's {@link ServantActivator}: a replica that takes a state holding objects it lacks (objects created by
     * requests before it joined, or before its restart) calls its {@code incarnate(oid, this)} for each, and checks
     * that the servant's type is the object's. Only a {@code ServantActivator}; {@code etherealize} is not called.
     */
    @Override
    public void set_servant_manager(org.omg.PortableServer.ServantManager manager) throws WrongPolicy {
        if (!(manager instanceof ServantActivator a)) {
            throw new BAD_PARAM("FTS: the group adaptor takes a ServantActivator (to incarnate objects the group "
                    + "created), not " + (manager == null ? "null" : manager.getClass().getName()), 0,
                    CompletionStatus.COMPLETED_NO);
        }
        table.activator(a);
    }

    @Override
    public org.omg.PortableServer.ServantManager get_servant_manager() {
        return table.activator();
    }

    @Override
    public org.omg.CORBA.Object create_reference(String intf) throws WrongPolicy {
        throw new WrongPolicy();
    }

    @Override
    public org.omg.CORBA.Object create_reference_with_id(byte[] oid, String intf) {
        if (References.marked(oid)) {
            throw new BAD_PARAM("FTS: an object id may not end with the placement mark (a NUL and \"fts>\")");
        }
        return references.reference(oid, intf);
    }

    @Override
    public byte[] servant_to_id(Servant servant) throws ServantNotActive {
        ObjectKey k = table.id(servant);
        if (k == null) {
            throw new ServantNotActive();
        }
        return k.id();
    }

    @Override
    public org.omg.CORBA.Object servant_to_reference(Servant servant) throws ServantNotActive {
        byte[] oid = servant_to_id(servant);
        return create_reference_with_id(oid, servant._all_interfaces(this, oid)[0]);
    }

    @Override
    public org.omg.CORBA.Object id_to_reference(byte[] oid) throws ObjectNotActive {
        Servant s = id_to_servant(oid);
        return create_reference_with_id(oid, s._all_interfaces(this, oid)[0]);
    }

    @Override
    public Servant id_to_servant(byte[] oid) throws ObjectNotActive {
        Servant s = objects.get(new ObjectKey(oid));
        if (s == null) {
            throw new ObjectNotActive();
        }
        return s;
    }

    @Override
    public byte[] reference_to_id(org.omg.CORBA.Object reference) throws WrongAdapter, WrongPolicy {
        return groupPoa.reference_to_id(reference);
    }

    @Override
    public Servant reference_to_servant(org.omg.CORBA.Object reference) throws WrongAdapter, WrongPolicy, ObjectNotActive {
        return id_to_servant(reference_to_id(reference));
    }

    // ------------------------------------------------------------------ the adaptor itself

    /**
     * The adaptor's manager: {@code activate()} also declares the objects activated, and returns once this
     * replica holds the group's state, or at once while the group has no primary yet (the first replicas to
     * start); a joiner fetches the state for up to {@code fts.state.timeout}, and fails with
     * {@code INITIALIZE} saying why.
     */
    @Override
    public POAManager the_POAManager() {
        return manager;
    }

    private void activated() {
        table.serving();
        if (frontDoor != null) {   // as JacORB's POA once its manager is active: requests flow, TRANSIENT until serving
            frontDoor.open(placement);
            frontEnd.open();
        }
        String failed = engine.activated(config.stateTimeout().toMillis());
        if (failed != null) {
            org.omg.CORBA.INITIALIZE e = new org.omg.CORBA.INITIALIZE("FTS: replica " + config.replicaId() + " "
                    + failed, 0, CompletionStatus.COMPLETED_NO);
            Throwable refusal = engine.refusal();
            if (refusal != null) {
                e.initCause(refusal);   // a ConfigException: the runner's exit status says no restart helps
            }
            throw e;
        }
        String why = engine.standing().notServing();
        LOG.info("replica {} {}", config.replicaId(), why == null ? "holds the group's state; serving"
                : "is not serving yet: it " + why);
    }

    @Override
    public String the_name() {
        return groupPoa.the_name();
    }

    @Override
    public byte[] id() {
        return groupPoa.id();
    }

    /**
     * Leaves the group, stops executing, and destroys the underlying POA. Its POA manager is set to discard
     * requests first: one that arrives between the POA's destruction and the ORB's shutdown gets TRANSIENT
     * (COMPLETED_NO), which FT clients retry on another replica, not OBJECT_NOT_EXIST ("POA destroyed"), which
     * they rightly take as final (FtClientInJvmTest met it once in about ten runs). The manager is the root POA's,
     * so other POAs under it discard too: destroying the group adaptor ends the replica.
     */
    @Override
    public void destroy(boolean etherealize, boolean waitForCompletion) {
        try {
            groupPoa.the_POAManager().discard_requests(false);
        } catch (org.omg.PortableServer.POAManagerPackage.AdapterInactive inactive) {
            // already inactive: requests are refused anyway
        }
        leave("destroy() was called");
        if (leaveOnShutdown != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(leaveOnShutdown);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran: it found the group left
            }
        }
        groupPoa.destroy(etherealize, waitForCompletion);
        if (metrics != null) {
            metrics.close();
        }
        stats.close();
        status.close();
    }

    /**
     * Leaves the group once: the last batch goes while the channel is open, the channel disconnects (the others
     * install a view without this replica at once), and execution stops. Requests not yet answered here fail
     * their connection; FT clients retry them elsewhere, where the reply cache answers those already executed.
     */
    private void leave(String why) {
        if (!left.compareAndSet(false, true)) {
            return;
        }
        LOG.info("replica {} leaves group {}: {}", config.replicaId(), config.group(), why);
        if (frontEnd != null) {
            frontEnd.close();   // its clients fail over now
        }
        org.fts.goa.giop.IntakeJmx.unregister(intakeName);
        if (naming != null) {
            naming.close();   // its names stay: the other replicas serve the same object groups
        }
        engine.flush();      // logs the stats dump
        placement.close();
        channel.close();
        engine.shutdown();
        if (outcalls != null) {
            outcalls.close();
        }
    }
}
