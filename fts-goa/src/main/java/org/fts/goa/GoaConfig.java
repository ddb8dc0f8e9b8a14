package org.fts.goa;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeys;
import org.fts.gc.GroupConfig;
import org.slf4j.Logger;

/** The Group Object Adaptor's configuration keys, and their values for one adaptor. */
public record GoaConfig(String group, String replicaId, List<String> replicas, int backgroundThreads,
                        boolean independentServants, int cacheMaxEntries, Duration cacheTtl,
                        Duration cacheMargin, Duration requestTimeout, int groupSize, Duration stateTimeout,
                        int maxRequestSize) {

    public static final ConfigKey<String> GROUP = ConfigKey.string("fts.group", "fts",
            "name of the replica group; every replica of one service uses the same");
    public static final ConfigKey<String> REPLICA_ID = ConfigKey.string("fts.replica.id", null,
            "this replica's unique name in the group (required)");
    public static final ConfigKey<List<String>> REPLICAS = ConfigKey.list("fts.replicas", List.of(),
            "every replica's IIOP endpoint host:port, same list and order everywhere; references carry all of them");
    public static final ConfigKey<Integer> POOL_BACKGROUND = ConfigKey.integer("fts.pool.background", 1, 1, 256,
            "threads", "threads executing delivered requests; more than 1 needs fts.servants.independent=true");
    public static final ConfigKey<Boolean> SERVANTS_INDEPENDENT = ConfigKey.bool("fts.servants.independent",
            false, "servants share no state: requests to different objects may execute in parallel");
    /**
     * Sized from the fastest rate measured (26.7k calls/s, docs/performance.md) over a retry window
     * (fts.client.request_duration 15 s + fts.cache.margin 5 s): 534k replies; about 250 bytes each for small
     * replies, 150 MB at the bound (docs/capacity.md). 100,000 covered 5k calls/s.
     */
    public static final ConfigKey<Integer> CACHE_MAX_ENTRIES = ConfigKey.integer("fts.cache.max_entries",
            600_000, 16, Integer.MAX_VALUE, "replies",
            "reply cache bound: beyond it the oldest replies go, and a retry of their requests gets IMP_LIMIT "
                    + "(COMPLETED_YES) instead of executing again; size it for request rate x fts.client.request_duration");
    public static final ConfigKey<Duration> CACHE_TTL = ConfigKey.duration("fts.cache.ttl", Duration.ofSeconds(60),
            Duration.ofMillis(100), Duration.ofHours(24),
            "longest a reply stays cached for retries, whatever the client's request expiration; an executed request's id "
                    + "is remembered twice as long, so a retry within it never executes again, whatever any clock says "
                    + "(group time: docs/fault-tolerance.md)");
    public static final ConfigKey<Duration> CACHE_MARGIN = ConfigKey.duration("fts.cache.margin",
            Duration.ofSeconds(5), Duration.ZERO, Duration.ofHours(1),
            "a reply stays cached this long past its request's FT_REQUEST expiration (clock skew)");
    /**
     * Below the FT client's fts.client.reply_timeout (5 s), so that a stalled request's TRANSIENT reaches an FT client
     * before it gives the attempt up on its own, and it retries at once elsewhere; at 30 s (before) no FT client ever
     * saw it.
     */
    public static final ConfigKey<Duration> REQUEST_TIMEOUT = ConfigKey.duration("fts.request.timeout",
            Duration.ofSeconds(4), Duration.ofMillis(10), Duration.ofHours(1),
            "longest a request waits to be ordered and executed before the client gets TRANSIENT (COMPLETED_MAYBE; an "
                    + "FT client retries it elsewhere); keep it below the clients' fts.client.reply_timeout");

    public static final ConfigKey<Duration> STATE_TIMEOUT = ConfigKey.duration("fts.state.timeout",
            Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(1),
            "longest a joining replica's POA manager activate() waits for the group's state before it fails; "
                    + "a provider silent for a quarter of it is replaced by another");

    public static final ConfigKey<Integer> REQUEST_MAX_SIZE = ConfigKey.integer("fts.request.max_size", 1 << 20,
            64, Integer.MAX_VALUE - 1024, "bytes", "largest marshalled arguments of one request; a larger request is "
                    + "refused at the replica that received it (IMP_LIMIT, COMPLETED_NO) before it reaches the group; keep "
                    + "it below fts.giop.max_message_size");

    public static final ConfigKey<Boolean> LEAVE_ON_SHUTDOWN = ConfigKey.bool("fts.shutdown.leave", true,
            "on JVM shutdown (SIGTERM, System.exit) the replica sends its last batch and leaves the group: the others "
                    + "install a view without it at once, with no failure detection, and its clients redirect");

    public static final ConfigKey<String> NAMING_URL = ConfigKey.optionalString("fts.naming.url",
            "a CosNaming service where serving replicas bind their object groups, e.g. "
                    + "corbaloc::127.0.0.1:2809/NameService (unset: none)");
    public static final ConfigKey<String> NAMING_CONTEXT = ConfigKey.optionalString("fts.naming.context",
            "the naming context path the object groups are bound under, a/b/c; each object's name is its id "
                    + "(unset: the group's name, fts.group)");

    public static final List<ConfigKey<?>> KEYS = List.of(GROUP, REPLICA_ID, REPLICAS, STATE_TIMEOUT, POOL_BACKGROUND,
            SERVANTS_INDEPENDENT, CACHE_MAX_ENTRIES, CACHE_TTL, CACHE_MARGIN, REQUEST_TIMEOUT, REQUEST_MAX_SIZE,
            LEAVE_ON_SHUTDOWN, NAMING_URL, NAMING_CONTEXT);

    /** Reads and validates every key, logging the values in effect. */
    public static GoaConfig from(Properties props, Logger log) {
        ConfigKeys.validateAndLog(log, "group object adaptor", props, KEYS);
        GoaConfig c = new GoaConfig(GROUP.get(props), REPLICA_ID.get(props), REPLICAS.get(props),
                POOL_BACKGROUND.get(props), SERVANTS_INDEPENDENT.get(props), CACHE_MAX_ENTRIES.get(props),
                CACHE_TTL.get(props), CACHE_MARGIN.get(props), REQUEST_TIMEOUT.get(props),
                GroupConfig.GROUP_SIZE.get(props) > 0 ? GroupConfig.GROUP_SIZE.get(props)
                        : !GroupConfig.VOTERS.get(props).isEmpty() ? GroupConfig.VOTERS.get(props).size()
                        : REPLICAS.get(props).size(),
                STATE_TIMEOUT.get(props), REQUEST_MAX_SIZE.get(props));
        if (c.groupSize == 0) {
            throw new ConfigException(GroupConfig.GROUP_SIZE.name(), "is 0, which means the number of fts.replicas, but "
                    + "fts.replicas is empty: set the group size N (the majority rule needs it)");
        }
        if (c.groupSize < c.replicas.size() && GroupConfig.VOTERS.get(props).isEmpty()) {   // learners' endpoints too
            throw new ConfigException(GroupConfig.GROUP_SIZE.name(), "is " + c.groupSize + ", but fts.replicas names "
                    + c.replicas.size() + " replicas");
        }
        if (c.backgroundThreads > 1 && !c.independentServants) {
            throw new ConfigException(POOL_BACKGROUND.name(), "is " + c.backgroundThreads
                    + ", but parallel execution needs fts.servants.independent=true (servants sharing no state)");
        }
        for (String r : c.replicas) {
            int colon = r.lastIndexOf(':');
            if (colon <= 0 || !r.substring(colon + 1).matches("\\d{1,5}")) {
                throw new ConfigException(REPLICAS.name(), "has entry '" + r + "', expected host:port");
            }
        }
        return c;
    }
}
