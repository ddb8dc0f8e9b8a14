package org.fts.goa;

import org.fts.config.Counter;

/**
 * A replica's state over JMX, {@code org.fts:type=Replica,group=…,member=…} (docs/deployment.md). Every
 * attribute is read when asked, from the replica's live state; none blocks the request path.
 */
public interface ReplicaMXBean {
    /** {@code fts.replica.id}. */
    String getReplicaId();

    /** {@code fts.group}. */
    String getGroup();

    /**
     * Whether the replica executes and answers requests: its view's epoch opened (the view is primary) and it
     * holds the group's state.
     */
    boolean isServing();

    /** Why it does not serve (minority, view not primary, fetching the state), or the empty string. */
    String getNotServing();

    /** Whether its view is primary for now: an epoch opened since the last view. */
    boolean isPrimary();

    /** The members of its current group view, in view order. */
    String getView();

    /** The version of the object group references it hands out (grows with membership changes). */
    long getGroupVersion();

    /** The group's wire version: the format its replicas speak (docs/upgrades.md). */
    int getWireVersion();

    /** The wire version of the batches this replica sends now: the group's, once its state is current. */
    int getWireVersionSent();

    /** The wire versions this replica's build speaks, {@code lowest-highest}. */
    String getWireVersions();

    /** The voters as its binding names them now, comma-separated ("every replica" when none are named). */
    String getVoters();

    /** N, the number of voters a majority is counted against (docs/membership.md). */
    int getGroupSize();

    /** Replies held for retries. */
    int getReplyCacheSize();

    /**
     * Replies evicted before their requests expired, since the replica started: the cache was full
     * ({@code fts.cache.max_entries}), and a retry of one gets IMP_LIMIT instead of its reply.
     */
    @Counter
    long getReplyCacheEarlyEvictions();

    /** States it installed from another replica (after a restart, a partition, or a join). */
    @Counter
    long getStateTransfersInstalled();

    /** States it gave to another replica. */
    @Counter
    long getStateTransfersProvided();

    /** Requests received here, cast, and waiting for their execution. */
    int getRequestsInFlight();

    /** Open client connections served here (placed here: not forwarded away); the placement's load index. */
    int getConnections();

    /** New client connections this replica forwarded to a less loaded one (fts.placement=load). */
    @Counter
    long getConnectionsForwarded();

    /** This replica's load and every replica's connections as its whiteboard shows them (docs/placement.md). */
    String getLoad();

    /** {@code fts.placement}: {@code load} or {@code first}. */
    String getPlacement();

    /** The requests in flight this replica publishes to its whiteboard (placement's load index). */
    long getPlacementInFlight();

    /** This replica's CPU, in permille of a core, as it publishes it (placement's load index). */
    long getCpuPermille();

    /** This replica's fixed costs (its share of the group's ordering), in permille of a core. */
    long getFixedPermille();

    /** Whether this replica publishes itself as serving (a candidate for forwarded connections). */
    boolean isPlacementServing();

    /** The replicas this one's whiteboard shows serving, itself included: the candidates for a forward. */
    int getServingReplicas();

    /** The connections this replica's whiteboard shows for each replica's endpoint ({@code host:port}). */
    java.util.Map<String, Long> getBoard();

    /** The extra work, in connections, this replica learned each replica has (by endpoint; only those with any). */
    java.util.Map<String, Long> getExtraWork();

    /** Deliveries of the group layer queued for this replica and not yet handled. */
    int getPendingDeliveries();

    /** Bytes of ordered requests queued for this replica's execution ({@code fts.delivery.max_backlog} bounds them). */
    long getPendingDeliveryBytes();

    /** How many times this replica's execution fell too far behind the group and it fetched the group's state. */
    @Counter
    long getFellBehind();

    /** Requests this replica cast into the total order (oneways included). */
    @Counter
    long getRequestsOrdered();

    /** Retries answered from the reply cache: executed once before, not again. */
    @Counter
    long getRequestsAnsweredFromCache();

    /** Requests not executed within {@code fts.request.timeout}: their clients got TRANSIENT, COMPLETED_MAYBE. */
    @Counter
    long getRequestsTimedOut();

    /** Requests refused with TRANSIENT because this replica did not serve (nothing cast). */
    @Counter
    long getRequestsRefusedNotServing();

    /** Requests refused with OBJECT_NOT_EXIST: the key names no object of the group. */
    @Counter
    long getRequestsRefusedNoObject();

    /** Requests refused with IMP_LIMIT: larger than {@code fts.request.max_size}. */
    @Counter
    long getRequestsRefusedTooLarge();

    /** Requests refused because they could not be captured (malformed arguments or contexts). */
    @Counter
    long getRequestsRefusedMalformed();

    /** Declared reads executed here after a read barrier, not ordered (docs/reads.md). */
    @Counter
    long getReadsLocal();

    /** Declared reads whose read barrier was refused, so they were ordered like any request. */
    @Counter
    long getReadsOrdered();

    /** Syncs of this replica's log since it started ({@code fts.durability=log}); -1 without a log. */
    @Counter
    long getLogSyncs();

    /** Log entries made durable per sync, on average since it started; -1 without a log. */
    double getLogRecordsPerSync();

    /** The median time of a sync of the log, in microseconds; -1 without a log. */
    long getLogSyncP50Micros();

    /** The 99th percentile of a sync of the log, in microseconds; -1 without a log. */
    long getLogSyncP99Micros();

    /** Bytes of the log's directory on disk (segments, checkpoints, epoch files); -1 without a log. */
    long getLogDiskBytes();
}
