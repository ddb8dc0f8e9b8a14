package org.fts.goa.intake;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeys;
import org.fts.gc.GroupChannel;
import org.fts.gc.MemberId;
import org.fts.gc.Whiteboard;
import org.omg.CORBA.ORB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 0 of the request path: where a new client connection is served (docs/placement.md). With {@code
 * fts.placement=load}, the first request of a connection that expects a reply is answered with GIOP
 * {@code LOCATION_FORWARD} when another serving replica counts at least {@link #MARGIN} connections fewer than this
 * one: the connection goes to the one that counts fewest. A replica counts its connections ({@link
 * LoadIndex#CONNECTIONS}, from its whiteboard entry), those this replica forwarded there that the entry does not show
 * yet, and the work it does besides serving them, in connections ({@link #extras}). Nothing was executed, so the
 * client's ORB sends the same request again to the group reference it is given, whose first profile is that
 * replica: exactly-once is untouched, and clients of any ORB follow. Only a connection's first request is placed: a
 * connection never moves once served, so none ping-pongs. With {@code first}, every connection stays where the
 * client's ORB opened it.
 */
public final class Placement {
    public static final ConfigKey<String> MODE = ConfigKey.choice("fts.placement", "first", List.of("first", "load"),
            "where a new client connection is served: 'first', where the client's ORB opened it (the first profile of "
                    + "the reference); 'load', its first request is forwarded (GIOP LOCATION_FORWARD) to the replica that "
                    + "counts fewest connections (its own, and its work besides them, such as ordering, in connections) "
                    + "when that one counts 2 fewer than this one. 'load' helped JacORB's listener and lowers calls/s on "
                    + "the adaptor's own (docs/placement.md)");
    /**
     * A connection is forwarded only to a replica that carries at least this many fewer: moving it then makes the
     * spread no worse even when this replica's view of the others is a little stale, so a forwarded connection is
     * not forwarded on (hysteresis).
     */
    static final int MARGIN = 2;
    /**
     * How much the CPU split undercounts the fixed work against the connections' (measured: docs/placement.md). The
     * split gives connections only their JacORB threads; their share of the collector, of the kernel's network work
     * and of the contention of a replica at its CPU cap counts as fixed, and the replica that orders, at its cap
     * first, pays most of that. Its CPU per call above the others' was twice what the split predicted.
     */
    static final double UNDERCOUNT = 2;
    /** Below this CPU of all connections together (thousandths of a core), the ratios are not learned. */
    static final double SIGNIFICANT_PERMILLE = 100;
    /** How long forwards count against their target at most, when its entry does not show them arriving. */
    static final long CREDIT_NANOS = 1_000_000_000L;

    private static final Logger LOG = LoggerFactory.getLogger(Placement.class);

    private final boolean byLoad;
    private final LoadIndex load;
    private final Whiteboard board;
    private final MemberId self;
    private final Supplier<List<String>> endpoints;
    private final String here;
    /** Per endpoint, the connections this replica forwarded there that its entry does not count yet. */
    private final Map<String, Credit> credits = new HashMap<>();
    /** Per serving replica, its learned {@link #ratios ratio}. */
    private final Map<MemberId, Double> learned = new ConcurrentHashMap<>();

    /**
     * Forwards to one replica not yet seen there: {@code sent} since its {@link LoadIndex#ARRIVALS} was {@code
     * base}, the latest at {@code lastNanos}. Arrivals there beyond {@code base} are taken to be these (or to have
     * made its count as current as if they were).
     */
    private static final class Credit {
        long base;
        int sent;
        long lastNanos;
    }
    private long forwarded;

    private final ORB orb;
    private final Function<byte[], String> iogr;
    /** Per object and target, the group reference that starts with the target: its group version, and it. */
    private final Map<String, Map.Entry<Long, org.omg.CORBA.Object>> references = new ConcurrentHashMap<>();
    private final Supplier<Long> version;

    public Placement(boolean byLoad, LoadIndex load, Whiteboard board, MemberId self, Membership membership, String here,
              ORB orb, Function<byte[], String> iogr) {
        this.byLoad = byLoad;
        this.orb = orb;
        this.iogr = iogr;
        this.version = () -> membership.current().version();
        this.load = load;
        this.board = board;
        this.self = self;
        this.endpoints = () -> membership.current().endpoints();
        this.here = here;
    }

    /**
     * A request arrived on {@code connection} (null: unknown, served here): null to serve it here, or the endpoint
     * of the replica it is forwarded to. {@code placed}: its object key carries the mark of a forwarded reference
     * ({@link References}): the connection was forwarded once already and stays here, so no connection is forwarded
     * twice, nor back.
     */
    String place(Object connection, boolean responseExpected, boolean placed) {
        if (connection == null || !load.arrived(connection)) {
            return null;
        }
        synchronized (this) {   // concurrent new connections see each other's decisions
            String to = byLoad && responseExpected && !placed ? lessLoaded(System.nanoTime()) : null;
            if (LOG.isDebugEnabled()) {
                LOG.debug("placement: a new connection{} -> {}; {}", placed ? " (placed before)" : "",
                        to == null ? "here" : to, describe());
            }
            if (to == null) {
                load.placedHere(connection);
            } else {
                Credit c = credits.get(to);   // lessLoaded made it for every candidate
                c.sent++;
                c.lastNanos = System.nanoTime();
                forwarded++;
            }
            return to;
        }
    }

    /** Object {@code oid}'s group reference with {@code endpoint}'s profile first (cached per group version). */
    org.omg.CORBA.Object reference(byte[] oid, String endpoint) {
        long v = version.get();
        String key = new ObjectKey(oid) + "@" + endpoint;
        Map.Entry<Long, org.omg.CORBA.Object> cached = references.get(key);
        if (cached == null || cached.getKey() != v) {
            cached = Map.entry(v, orb.string_to_object(Iogr.startingWith(iogr.apply(oid), endpoint)));
            references.put(key, cached);
        }
        return cached.getValue();
    }

    public LoadIndex load() {
        return load;
    }

    public void close() {
        load.close();
    }

    /**
     * One line for operators: this replica's published values, the connections it forwarded, and each replica's
     * connections as its whiteboard shows them, e.g. {@code connections=3 forwarded=6 in_flight=0 cpu_permille=410
     * serving=1 serving_replicas=2 board=127.0.0.1:20001=3,127.0.0.1:20002=3} ({@code serving_replicas}: those its
     * whiteboard shows serving, the candidates for a forward, this one included).
     */
    public String describe() {
        return figures().format();
    }

    /** Where this replica's load and placement stand ({@link GroupPOA#load()}). */
    public PlacementFigures figures() {
        long[] v = load.current();
        List<String> eps = endpoints.get();
        Map<String, Long> seen = new java.util.TreeMap<>();
        board.entries().forEach((m, e) -> {
            int i = (int) e.value(LoadIndex.ENDPOINT);
            seen.put(i >= 0 && i < eps.size() ? eps.get(i) : m.name(), e.value(LoadIndex.CONNECTIONS));
        });
        Map<MemberId, Whiteboard.Entry> all = serving(board.entries(), eps);
        Map<MemberId, Long> learnedExtra = extras(all, learned);
        Map<String, Long> extra = new java.util.TreeMap<>();
        all.forEach((m, e) -> {
            long x = learnedExtra.getOrDefault(m, 0L);
            if (x > 0) {
                extra.put(eps.get((int) e.value(LoadIndex.ENDPOINT)), x);
            }
        });
        return new PlacementFigures(byLoad ? "load" : "first", load.connections(), forwarded(), v[LoadIndex.IN_FLIGHT],
                v[LoadIndex.CPU], v[LoadIndex.SERVING] != 0, v[LoadIndex.FIXED], all.size(), seen, extra);
    }

    /**
     * The {@code FTS_GROUP_LOAD} context for a reply to an FT client on {@code connection}: each serving replica's
     * count, as placement counts it (its interceptor fails over to the least loaded replica), at most once a second
     * per connection; null when not due, or with {@code first}.
     */
    byte[] loadsFor(Object connection) {
        if (!byLoad || !load.loadsDue(connection, 1_000_000_000L)) {
            return null;
        }
        List<String> eps = endpoints.get();
        Map<MemberId, Whiteboard.Entry> all = serving(board.entries(), eps);
        Map<MemberId, Long> extra = extras(all, learned);
        Map<String, Long> loads = new java.util.LinkedHashMap<>();
        all.forEach((m, e) -> loads.put(eps.get((int) e.value(LoadIndex.ENDPOINT)), extra.getOrDefault(m, 0L)
                + (m.equals(self) ? load.connections() : e.value(LoadIndex.CONNECTIONS))));
        return new org.fts.ft.FtGroupLoad(loads).encode();
    }

    /** Connections forwarded away so far. */
    public synchronized long forwarded() {
        return forwarded;
    }

    /**
     * The replica a new connection should go to instead of this one, or null. Each serving replica counts its
     * connections, those this replica forwarded there that its entry does not show yet, and its extra work in
     * connections ({@link #extras}). The candidate is the replica that counts least; it gets the connection if this
     * replica counts at least {@link #MARGIN} more.
     */
    private String lessLoaded(long now) {
        List<String> eps = endpoints.get();
        Map<MemberId, Whiteboard.Entry> all = serving(board.entries(), eps);
        Map<MemberId, Long> extra = extras(all, learned);
        String best = null;
        long bestLoad = Long.MAX_VALUE;
        for (Map.Entry<MemberId, Whiteboard.Entry> e : all.entrySet()) {
            Whiteboard.Entry v = e.getValue();
            String ep = eps.get((int) v.value(LoadIndex.ENDPOINT));
            if (e.getKey().equals(self) || ep.equals(here)) {
                continue;
            }
            long l = v.value(LoadIndex.CONNECTIONS) + outstanding(ep, v.value(LoadIndex.ARRIVALS), now)
                    + extra.getOrDefault(e.getKey(), 0L);
            if (l < bestLoad) {
                best = ep;
                bestLoad = l;
            }
        }
        long myLoad = load.connections() + extra.getOrDefault(self, 0L);
        return best != null && myLoad - bestLoad >= MARGIN ? best : null;
    }

    /** The entries of replicas that serve and are in the reference's endpoint list. */
    private static Map<MemberId, Whiteboard.Entry> serving(Map<MemberId, Whiteboard.Entry> all, List<String> eps) {
        Map<MemberId, Whiteboard.Entry> out = new HashMap<>();
        all.forEach((m, v) -> {
            int i = (int) v.value(LoadIndex.ENDPOINT);
            if (v.value(LoadIndex.SERVING) == 1 && i >= 0 && i < eps.size()) {
                out.put(m, v);
            }
        });
        return out;
    }

    /**
     * Each replica's work besides its connections, counted in connections: the group's connections times its learned
     * {@link #ratios ratio} times {@link #UNDERCOUNT}, to the nearest whole one, and at most the group's mean
     * connections per replica.
     */
    static Map<MemberId, Long> extras(Map<MemberId, Whiteboard.Entry> serving, Map<MemberId, Double> ratios) {
        long connections = 0;
        for (Whiteboard.Entry v : serving.values()) {
            connections += v.value(LoadIndex.CONNECTIONS);
        }
        if (serving.size() < 2 || ratios.isEmpty()) {
            return Map.of();
        }
        double cap = Math.max(MARGIN, (double) connections / serving.size());
        Map<MemberId, Long> out = new HashMap<>();
        long n = connections;
        serving.forEach((m, v) -> out.put(m, Math.round(Math.min(cap, n * ratios.getOrDefault(m, 0.0) * UNDERCOUNT))));
        return out;
    }

    /**
     * Each serving replica's work besides its connections, per unit of the connections' work: (its {@link
     * LoadIndex#FIXED} CPU − the least of the replicas') / the CPU of all connections together. Both terms grow with
     * the calls the group serves, so the ratio is the same under any load: the sequencer's ordering per call over a
     * connection's work per call. The work every replica does (executing every request) cancels out. Empty unless
     * the connections load the group ({@link #SIGNIFICANT_PERMILLE}, and a connection per replica): otherwise the
     * fixed parts are start-up and background work, which a few calls would magnify.
     */
    static Map<MemberId, Double> ratios(Map<MemberId, Whiteboard.Entry> serving) {
        double connectionCpu = 0;
        long connections = 0;
        long leastFixed = Long.MAX_VALUE;
        for (Whiteboard.Entry v : serving.values()) {
            connectionCpu += Math.max(0, v.value(LoadIndex.CPU) - v.value(LoadIndex.FIXED));
            connections += v.value(LoadIndex.CONNECTIONS);
            leastFixed = Math.min(leastFixed, v.value(LoadIndex.FIXED));
        }
        if (serving.size() < 2 || connections < serving.size() || connectionCpu < SIGNIFICANT_PERMILLE) {
            return Map.of();
        }
        Map<MemberId, Double> out = new HashMap<>();
        long least = leastFixed;
        double all = connectionCpu;
        serving.forEach((m, v) -> out.put(m, (v.value(LoadIndex.FIXED) - least) / all));
        return out;
    }

    /**
     * After each load sample: the ratios, averaged over about a second of samples while the connections load the
     * group, and kept while they do not (so a burst of connections after a quiet spell is placed with the ratios of
     * the last busy one).
     */
    public void learn() {
        Map<MemberId, Whiteboard.Entry> all = serving(board.entries(), endpoints.get());
        learned.keySet().retainAll(all.keySet());
        ratios(all).forEach((m, r) -> learned.merge(m, r, (old, now) -> old + 0.25 * (now - old)));
    }

    /** Connections forwarded to {@code endpoint} that its entry, showing {@code arrivals}, does not count yet. */
    private int outstanding(String endpoint, long arrivals, long now) {
        Credit c = credits.computeIfAbsent(endpoint, k -> new Credit());
        if (c.sent == 0 || arrivals - c.base >= c.sent || now - c.lastNanos > CREDIT_NANOS) {
            c.base = arrivals;   // all arrived (or given up on): counting starts again from here
            c.sent = 0;
            return 0;
        }
        return c.sent - (int) Math.max(0, arrivals - c.base);
    }}
